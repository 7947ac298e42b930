# C++20 for CUDA sources that include ishmem.h. CMake releases that predate the nvcc in use know
# no C++20 dialect flag for it (3.25 with nvcc 12 and 13): a CUDA target that needs C++20 (through
# CUDA_STANDARD 20 or ishmem::ishmem's cxx_std_20) then fails with "requires the language dialect
# CUDA20". This teaches the calling directory the flag; it changes nothing where CMake knows it.
# Included by ishmem's own build and, for consumers, by ishmemConfig.cmake once CUDA is enabled.
get_property(_ishmem_enabled_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if("CUDA" IN_LIST _ishmem_enabled_languages AND NOT "cuda_std_20" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
  set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
endif()
unset(_ishmem_enabled_languages)
