# A wrong-way include fails the build. scripts/check_module_layers.py reads the module
# order from src/CMakeLists.txt and refuses an include of a module listed above the
# includer, or of another module's detail/ folder. Every compiled target sees the one
# src/ include root, so the compiler cannot refuse these itself; the check runs as a
# build step instead, again whenever a source file changes.
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "kharness: no python3, the module layer check is off")
  return()
endif()
set(KHARNESS_LAYER_CHECK "${PROJECT_SOURCE_DIR}/scripts/check_module_layers.py")
file(GLOB_RECURSE kharness_layer_sources CONFIGURE_DEPENDS
     "${PROJECT_SOURCE_DIR}/src/*.h" "${PROJECT_SOURCE_DIR}/src/*.cpp" "${PROJECT_SOURCE_DIR}/src/*.cu"
     "${PROJECT_SOURCE_DIR}/operators/*.h" "${PROJECT_SOURCE_DIR}/operators/*.cpp"
     "${PROJECT_SOURCE_DIR}/operators/*.cu")
set(kharness_layer_stamp "${PROJECT_BINARY_DIR}/module_layers.stamp")
add_custom_command(
  OUTPUT "${kharness_layer_stamp}"
  COMMAND Python3::Interpreter "${KHARNESS_LAYER_CHECK}" --quiet --root "${PROJECT_SOURCE_DIR}"
          --stamp "${kharness_layer_stamp}"
  DEPENDS "${KHARNESS_LAYER_CHECK}" "${PROJECT_SOURCE_DIR}/src/CMakeLists.txt" ${kharness_layer_sources}
  COMMENT "Checking that every include points down the module layers"
  VERBATIM)
add_custom_target(kharness_module_layers ALL DEPENDS "${kharness_layer_stamp}")
