# The JSON/trace fuzzer: arbitrary bytes into the definition, solution and trace parsers,
# validation, and the constraint-expression parser and evaluator.
if(NOT COMMAND kharness_add_fuzzer)
  # Fallback for building this branch alone: instruments the given libraries for coverage
  # and links the target with libFuzzer, ASan and UBSan.
  function(kharness_add_fuzzer name source)
    set(libs ${ARGN})
    foreach(lib IN LISTS libs)
      target_compile_options(${lib} PRIVATE -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
      # Other users of an instrumented library (the kharness binary) need the runtimes too.
      target_link_options(${lib} INTERFACE -fsanitize=address,undefined)
    endforeach()
    add_executable(${name} ${source})
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(${name} PRIVATE ${libs})
  endfunction()
endif()

kharness_add_fuzzer(json_fuzz ${CMAKE_CURRENT_LIST_DIR}/json_fuzz.cpp kharness_trace)
