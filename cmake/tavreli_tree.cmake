# tavreli_tree.cmake: the source tree a build is made from, as one git tree
# hash: the files git tracks as they are in the working tree (edits not yet
# committed included, untracked files not: git describe's "-dirty" counts
# the same files), staged into a temporary index and written as a tree
# object.  A clean checkout gives its commit's tree (git rev-parse
# COMMIT^{tree}); any edit gives another.  `tavreli compare` uses it to know
# that an executable was built from the working tree as it is now, so that
# the working tree need not be built again (selfplay/build_cache.c).
#
# The one definition, used two ways:
#   include(tavreli_tree.cmake) then tavreli_tree(SRC VAR): VAR = the hash
#     ("" outside a git checkout), as cmake/tavreli_version.cmake records it
#     in the build;
#   cmake -DSRC=DIR -P tavreli_tree.cmake: prints "tree HASH" (nothing
#     outside a git checkout), as build_cache.c reads it.
function(tavreli_tree src var)
  set(${var} "" PARENT_SCOPE)
  find_package(Git QUIET)
  if(NOT GIT_FOUND)
    return()
  endif()
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${src}" rev-parse --absolute-git-dir
                  OUTPUT_VARIABLE gitdir RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT rc EQUAL 0)
    return()
  endif()
  # A copy of the checkout's index (its file times spare git hashing the
  # files that did not change: 30 ms on this project), updated with every
  # tracked file's content; the real index is left alone.
  string(RANDOM LENGTH 12 tag)
  set(index "${gitdir}/tavreli-tree-${tag}.index")
  if(EXISTS "${gitdir}/index")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${gitdir}/index" "${index}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "GIT_INDEX_FILE=${index}" "${GIT_EXECUTABLE}" -C "${src}"
                          add --update :/
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env "GIT_INDEX_FILE=${index}" "${GIT_EXECUTABLE}" -C "${src}"
                            write-tree
                    OUTPUT_VARIABLE tree RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  file(REMOVE "${index}")
  if(rc EQUAL 0 AND tree MATCHES "^[0-9a-f]+$")
    set(${var} "${tree}" PARENT_SCOPE)
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  tavreli_tree("${SRC}" tree)
  if(tree)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E echo "tree ${tree}")
  endif()
endif()
