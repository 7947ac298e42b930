// Installs the memory hooks of tests/patterns for the whole GPU suite before main: the generated
// cases (host forms on the GPU heap and device forms alike) then touch symmetric memory through
// cudaMemcpy and hand kernels pinned buffers. See device_adapters.h.
#include "device_adapters.h"

namespace {
[[maybe_unused]] const bool installed = ishmem_gpu_testing::install_pattern_memory_hooks();
}  // namespace
