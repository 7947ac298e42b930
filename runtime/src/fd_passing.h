// Descriptors sent in a socket message (SCM_RIGHTS): the one way ishmrun, the launcher bootstrap and
// the MPI bootstrap attach them.
#pragma once

#include <sys/socket.h>

#include <cstring>

namespace ishmemi {

// Bytes of control buffer that nfds descriptors need (the buffer must be aligned as a cmsghdr).
constexpr size_t fd_control_bytes(int nfds) { return CMSG_SPACE(sizeof(int) * static_cast<size_t>(nfds)); }

// Attaches fds[0..nfds) to msg in control, which holds fd_control_bytes(nfds) bytes.
inline void attach_fds(msghdr& msg, void* control, const int* fds, int nfds) {
    msg.msg_control = control;
    msg.msg_controllen = fd_control_bytes(nfds);
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * static_cast<size_t>(nfds));
    std::memcpy(CMSG_DATA(c), fds, sizeof(int) * static_cast<size_t>(nfds));
}

}  // namespace ishmemi
