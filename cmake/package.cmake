# Install rules: headers, libishmem, ishmrun, the CMake package (find_package(ishmem) -> ishmem::ishmem)
# and pkg-config's ishmem.pc (C and C++ compilers, and nvcc) and ishmem-cuda.pc (nvcc, with C++20).
include(CMakePackageConfigHelpers)

install(TARGETS ishmem EXPORT ishmemTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/ ${ISHMEM_GENERATED_DIR}/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
install(EXPORT ishmemTargets NAMESPACE ishmem:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ishmem)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ishmemConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/ishmemConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ishmem
                              PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ishmemConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ishmemConfig.cmake ${PROJECT_BINARY_DIR}/ishmemConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/ishmemCudaStandard.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ishmem)

# ishmem.pc finds the prefix from its own location, so `cmake --install --prefix P` works for any P.
file(RELATIVE_PATH ISHMEM_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
foreach(pc ishmem ishmem-cuda)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
