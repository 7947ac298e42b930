// Text built in a caller's fixed buffer with no allocation, no locale and no stdio, and written
// with write(2): what a signal handler may use (malloc, std::string and stdio may deadlock there
// when the signal interrupted them). The where-every-PE-is report is built with it, as ishmrun's
// stop request prints it from a handler (checks.cpp).
#pragma once

#include <errno.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace ishmemi {

class signal_safe_text {
  public:
    signal_safe_text(char* buf, size_t size) : buf_(buf), size_(size) { buf_[0] = '\0'; }

    // Appends; what does not fit is cut off (the text stays terminated).
    signal_safe_text& add(const char* s) {
        while (s && *s && len_ + 1 < size_) buf_[len_++] = *s++;
        buf_[len_] = '\0';
        return *this;
    }
    signal_safe_text& add(long long v) {
        char digits[24];
        int n = 0;
        unsigned long long u = v < 0 ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
        do digits[n++] = static_cast<char>('0' + u % 10);
        while ((u /= 10) != 0);
        if (v < 0) digits[n++] = '-';
        char out[24];
        for (int i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
        out[n] = '\0';
        return add(out);
    }
    signal_safe_text& add(int v) { return add(static_cast<long long>(v)); }
    // ns as seconds with one decimal ("12.3"), rounded.
    signal_safe_text& add_seconds(uint64_t ns) {
        const uint64_t tenths = (ns + 50000000u) / 100000000u;
        add(static_cast<long long>(tenths / 10)).add(".");
        return add(static_cast<long long>(tenths % 10));
    }

    char* data() { return buf_; }
    size_t size() const { return len_; }

  private:
    char* buf_;
    size_t size_;
    size_t len_ = 0;
};

// Writes all of [text, text + n) to fd, again after a signal or a short write.
inline void write_all(int fd, const char* text, size_t n) {
    while (n > 0) {
        const ssize_t w = write(fd, text, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        text += w;
        n -= static_cast<size_t>(w);
    }
}

}  // namespace ishmemi
