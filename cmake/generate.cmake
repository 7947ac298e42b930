# Regenerates generated/ in the source tree when a spec, template or generator file changes.
# A checkout whose generated/ is fresh builds without Python; a stale one needs an interpreter
# that has jinja2, yaml and jsonschema (Debian's /usr/bin/python3 with python3-jinja2 etc.).
file(GLOB_RECURSE ISHMEM_GENERATOR_INPUTS CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/spec/*.yaml ${PROJECT_SOURCE_DIR}/spec/*.json
     ${PROJECT_SOURCE_DIR}/templates/*.j2 ${PROJECT_SOURCE_DIR}/generator/*.py)

set(ISHMEM_PYTHON "" CACHE FILEPATH "Python interpreter with jinja2, yaml and jsonschema")
if(NOT ISHMEM_PYTHON)
  foreach(candidate /usr/bin/python3 python3)
    find_program(_ishmem_py NAMES ${candidate} NO_CACHE)
    if(_ishmem_py)
      execute_process(COMMAND ${_ishmem_py} -c "import jinja2, yaml, jsonschema"
                      RESULT_VARIABLE _ishmem_py_rc OUTPUT_QUIET ERROR_QUIET)
      if(_ishmem_py_rc EQUAL 0)
        set(ISHMEM_PYTHON ${_ishmem_py} CACHE FILEPATH "" FORCE)
        break()
      endif()
    endif()
    unset(_ishmem_py)
  endforeach()
endif()

# OFF: build from generated/ as it is (scripts/test-sanitizers.sh: the main build has just
# regenerated it and ctest's generator_check checked it).
option(ISHMEM_REGENERATE "Regenerate generated/ when its inputs change (needs ISHMEM_PYTHON)" ON)

set(ISHMEM_GENERATED_DIR ${PROJECT_SOURCE_DIR}/generated)
set(_stamp ${PROJECT_BINARY_DIR}/generated.stamp)
if(ISHMEM_PYTHON AND ISHMEM_REGENERATE)
  message(STATUS "ishmem: generator runs with ${ISHMEM_PYTHON}")
  add_custom_command(
    OUTPUT ${_stamp}
    COMMAND ${ISHMEM_PYTHON} -m generator --quiet
    COMMAND ${CMAKE_COMMAND} -E touch ${_stamp}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    DEPENDS ${ISHMEM_GENERATOR_INPUTS}
    COMMENT "Regenerating generated/ from spec/ and templates/"
    VERBATIM)
  add_custom_target(ishmem_generate DEPENDS ${_stamp})
else()
  message(STATUS "ishmem: not regenerating (no Python with jinja2/yaml/jsonschema, or ISHMEM_REGENERATE=OFF); using the committed generated/")
  add_custom_target(ishmem_generate)
endif()
