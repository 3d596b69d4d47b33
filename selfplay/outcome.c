/* outcome.c: see outcome.h. */
#include "outcome.h"

const char *termination_name(Termination t)
{
    switch (t) {
    case TERM_CHECKMATE: return "checkmate";
    case TERM_STALEMATE: return "stalemate";
    case TERM_REPETITION: return "repetition";
    case TERM_ADJ_MAX_PLIES: return "max_plies";
    case TERM_ADJ_RESIGN: return "resign";
    case TERM_ADJ_DRAW: return "draw";
    case TERM_WIZARD_CAPTURED: return "wizard_captured";
    case TERM_ILLEGAL_MOVE: return "illegal_move";
    case TERM_TIME_FORFEIT: return "time_forfeit";
    case TERM_ENGINE_DIED: return "engine_died";
    case TERM_ENGINE_STALLED: return "engine_stalled";
    }
    return "unknown";
}

const char *termination_meaning(Termination t)
{
    switch (t) {
    case TERM_CHECKMATE: return "checkmate (by the rules)";
    case TERM_STALEMATE: return "stalemate: draw (by the rules)";
    case TERM_REPETITION: return "threefold repetition: draw";
    case TERM_ADJ_MAX_PLIES: return "adjudicated draw at the ply limit";
    case TERM_ADJ_RESIGN: return "adjudicated win: both engines agreed the score was decisive";
    case TERM_ADJ_DRAW: return "adjudicated draw: both engines saw a score near zero";
    case TERM_WIZARD_CAPTURED: return "the Wizard was captured (ending=capture)";
    case TERM_ILLEGAL_MOVE: return "lost by the side to move: it answered an illegal or unreadable move";
    case TERM_TIME_FORFEIT: return "lost on time: the side to move overstepped its clock or movetime by more than "
                                   "timemargin";
    case TERM_ENGINE_DIED: return "lost by the side to move: its engine process ended or closed its pipe";
    case TERM_ENGINE_STALLED: return "lost by the side to move: its engine gave no answer within its timeout";
    }
    return "a termination code this program does not know";
}
