// The bootstraps built into libishmem and the choice among them at init.
#pragma once

#include <memory>

#include "ishmem/impl/bootstrap.h"

namespace ishmemi {

// The launcher's rendezvous over the socket named by ISHMEMI_BOOT_FD; nullptr when it is unset.
std::unique_ptr<bootstrap> make_launcher_bootstrap();
// ishmem_global_exit under ishmrun: tells the launcher that PE pe (-1: the one ISHMEMI_PE names) ends
// the job with status. False when the process was not started by ishmrun or the launcher is gone.
bool notify_launcher_global_exit(int status, int pe = -1);
// A lone PE: 0 of 1.
std::unique_ptr<bootstrap> make_single_bootstrap();
// Registered factory for name, or nullptr.
bootstrap_factory find_bootstrap(const char* name);

// Applies the contract's choice rules (launcher, then MPI when requested and linked, else lone);
// *kind names the choice for ISHMEM_DEBUG.
std::unique_ptr<bootstrap> select_bootstrap(const ishmemx_attr_t* attr, const char* routine, const char** kind);

}  // namespace ishmemi

namespace ishmemi {
// The bootstrap chosen by init, until finalize; nullptr outside. For code that needs collectives
// before or outside the symmetric heap (team creation, for instance).
bootstrap* active_bootstrap();
}  // namespace ishmemi
