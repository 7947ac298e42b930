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
//
// ishmem_global_exit does not use the socket: any thread may call it, also while another thread of
// the PE is in the middle of a request. The PE queues boot_global_exit_signal to ishmrun (its pid in
// ISHMEMI_LAUNCHER_PID) with sigqueue, value boot_global_exit_value(pe, status), then exits with
// status; ishmrun names the PE, stops the others and exits with status.
#pragma once

#include <csignal>
#include <cstddef>
#include <cstdint>

namespace ishmemi {

enum boot_op : uint32_t { boot_allgather = 1, boot_barrier = 2, boot_exchange_fds = 3 };

struct boot_header {
    uint32_t magic;  // boot_magic: catches an ISHMEMI_BOOT_FD that is not ishmrun's socket
    uint32_t op;     // boot_op
    uint64_t count;  // allgather: bytes per PE; exchange_fds: fds in this message
};

inline constexpr uint32_t boot_magic = 0x15484d52;  // "ISHMR"-ish
inline constexpr size_t boot_chunk = 64 * 1024;
inline constexpr int boot_fds_per_message = 200;

inline constexpr int boot_global_exit_signal = SIGUSR1;
// ishmrun, told to stop the job (SIGINT, SIGTERM, SIGHUP), queues this signal to every PE that has
// connected, value the signal it got, and passes that signal on a moment later: each PE's handler
// (installed before its first request) may print where every PE is. A real-time signal, which
// programs rarely use; SIGRTMIN is not a constant.
inline int boot_stop_report_signal() { return SIGRTMIN + 3; }
// An exit status is 8 bits; the PE number goes above them.
inline constexpr int boot_global_exit_value(int pe, int status) { return pe * 256 + (status & 255); }
inline constexpr int boot_global_exit_pe(int value) { return value / 256; }
inline constexpr int boot_global_exit_status(int value) { return value % 256; }

inline const char* boot_op_name(uint32_t op) {
    switch (op) {
        case boot_allgather:
            return "allgather";
        case boot_barrier:
            return "barrier";
        case boot_exchange_fds:
            return "exchange_fds";
        default:
            return "unknown request";
    }
}

}  // namespace ishmemi
