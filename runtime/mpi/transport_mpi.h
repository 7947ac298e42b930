// The MPI transport to the PEs of other nodes (transport_mpi.cpp); the MPI bootstrap makes it.
#pragma once

#include <mpi.h>

#include <memory>

#include "ishmem/impl/transport.h"

namespace ishmemi {

// Collective over world, after the symmetric heap and globals are mapped.
std::unique_ptr<transport> make_mpi_transport(MPI_Comm world, long progress_sleep_us);

}  // namespace ishmemi
