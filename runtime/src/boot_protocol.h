// Wire format between ishmrun and the PEs it starts (AF_UNIX SOCK_SEQPACKET, one socket per PE,
// its number in ISHMEMI_BOOT_FD). Each PE has at most one request outstanding; requests are
// collective, so ishmrun answers once every PE has sent the same one.
//
//   request                                         reply
//   boot_header{allgather, bytes} + data messages   boot_header{allgather, bytes} + n_pes * bytes of
//                                                   data messages (PE order)
//   boot_header{barrier, 0}                         boot_header{barrier, 0}
//   boot_header{exchange_fds, 1} + SCM_RIGHTS fd    boot_header{exchange_fds, k} + SCM_RIGHTS k fds,
//                                                   repeated until n_pes fds (PE order) arrived
//
// Data travels in messages of at most boot_chunk bytes, fds at most boot_fds_per_message at a time
// (the kernel refuses more than SCM_MAX_FD = 253 per message).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ishmemi {

enum boot_op : uint32_t { boot_allgather = 1, boot_barrier = 2, boot_exchange_fds = 3 };

struct boot_header {
    uint32_t magic;   // boot_magic: catches an ISHMEMI_BOOT_FD that is not ishmrun's socket
    uint32_t op;      // boot_op
    uint64_t count;   // allgather: bytes per PE; exchange_fds: fds in this message
};

inline constexpr uint32_t boot_magic = 0x15484d52;  // "ISHMR"-ish
inline constexpr size_t boot_chunk = 64 * 1024;
inline constexpr int boot_fds_per_message = 200;

inline const char* boot_op_name(uint32_t op) {
    switch (op) {
        case boot_allgather: return "allgather";
        case boot_barrier: return "barrier";
        case boot_exchange_fds: return "exchange_fds";
        default: return "unknown request";
    }
}

}  // namespace ishmemi
