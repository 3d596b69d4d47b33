# libFuzzer targets, built only with -DTAVRELI_FUZZ=ON and clang:
#   CC=clang cmake -S . -B build-fuzz -DTAVRELI_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
#   cmake --build build-fuzz --target fuzz_readers
#   build-fuzz/tests/fuzz_readers -dict=tests/data/fuzz_tavreli.dict \
#       -max_total_time=600 /tmp/fuzz-corpus tests/data/fuzz_corpus
# The core is instrumented for coverage (fuzzer-no-link) and sanitised; every
# program that links it (the CLI, the ordinary tests) then links the
# sanitizer runtimes too, so the whole build must use clang.
if(TAVRELI_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "TAVRELI_FUZZ=ON needs clang: configure with CC=clang (compiler is ${CMAKE_C_COMPILER_ID})")
  endif()
  set(TAVRELI_FUZZ_SAN address,undefined)
  target_compile_options(tavreli_core PRIVATE
    -fsanitize=fuzzer-no-link,${TAVRELI_FUZZ_SAN} -fno-omit-frame-pointer -g)
  target_link_options(tavreli_core INTERFACE -fsanitize=${TAVRELI_FUZZ_SAN})

  add_executable(fuzz_readers fuzz_readers.c fuzz_checks.c)
  target_link_libraries(fuzz_readers PRIVATE tavreli_core)
  target_compile_options(fuzz_readers PRIVATE -fsanitize=fuzzer,${TAVRELI_FUZZ_SAN} -fno-omit-frame-pointer -g)
  target_link_options(fuzz_readers PRIVATE -fsanitize=fuzzer,${TAVRELI_FUZZ_SAN})
endif()
