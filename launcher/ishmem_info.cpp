// ishmem-info: what this build of ishmem is (version, backends, MPI bootstrap), what this machine has
// of them (GPUs and their peer access, the MPI library) and the ISHMEM_* environment variables of
// the runtime's table with their defaults and current values. Text, or one JSON object (--json).
// It starts no job and never calls ishmem_init, so it runs anywhere, launcher or not.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "config_vars.h"
#include "ishmem/generated/constants.h"

#if ISHMEM_INFO_CUDA
#include <cuda_runtime_api.h>
#endif
#if ISHMEM_INFO_MPI
#include <mpi.h>
#endif

#ifndef ISHMEM_VERSION
#define ISHMEM_VERSION "unknown"
#endif

extern char** environ;

using namespace ishmemi;

namespace {

constexpr int exit_usage = 2;

// ---- what is found; printed as text or JSON afterwards ----

struct gpu {
    int index = 0;
    std::string name, pci_bus_id;
    unsigned long long memory_bytes = 0;
    int cc_major = 0, cc_minor = 0;
};

struct peer_link {
    int from = 0, to = 0;
    bool access = false, native_atomics = false;
};

struct cuda_report {
    bool built = false;
    std::string runtime_version, driver_version;  // "" when unknown / no driver
    std::string status;                           // "ok", or why there are no GPUs to use
    std::vector<gpu> gpus;
    std::vector<peer_link> peers;
};

struct mpi_report {
    bool built = false;
    std::string library;  // MPI_Get_library_version, first line
};

#if ISHMEM_INFO_CUDA
std::string version_text(int v) {  // CUDA's 1000 * major + 10 * minor
    return v <= 0 ? "" : std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}
#endif

cuda_report probe_cuda() {
    cuda_report r;
#if ISHMEM_INFO_CUDA
    r.built = true;
    int v = 0;
    if (cudaRuntimeGetVersion(&v) == cudaSuccess) r.runtime_version = version_text(v);
    v = 0;
    cudaDriverGetVersion(&v);  // 0, and no error, when no driver is installed
    r.driver_version = version_text(v);
    if (v == 0) {
        r.status = "no CUDA driver";
        return r;
    }
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || n == 0) {
        r.status = err == cudaSuccess || err == cudaErrorNoDevice ? "no GPU"
                                                                  : std::string("no GPU: ") + cudaGetErrorString(err);
        return r;
    }
    r.status = "ok";
    for (int i = 0; i < n; ++i) {
        cudaDeviceProp p{};
        gpu g;
        g.index = i;
        if (cudaGetDeviceProperties(&p, i) == cudaSuccess) {
            g.name = p.name;
            g.memory_bytes = p.totalGlobalMem;
            g.cc_major = p.major;
            g.cc_minor = p.minor;
        }
        char bus[32] = "";
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) g.pci_bus_id = bus;
        r.gpus.push_back(g);
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            if (i == j) continue;
            peer_link l{i, j, false, false};
            int can = 0, atomics = 0;
            if (cudaDeviceCanAccessPeer(&can, i, j) == cudaSuccess) l.access = can != 0;
            if (cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, i, j) == cudaSuccess)
                l.native_atomics = atomics != 0;
            r.peers.push_back(l);
        }
    }
#endif
    return r;
}

mpi_report probe_mpi() {
    mpi_report r;
#if ISHMEM_INFO_MPI
    r.built = true;
    // MPI_Get_library_version may be called before MPI_Init (MPI-3.0, 8.1.1): no job is started.
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    MPI_Get_library_version(text, &len);
    std::string s(text, strnlen(text, sizeof text));  // Open MPI counts the terminating null in len
    r.library = s.substr(0, s.find_first_of("\r\n"));
    while (!r.library.empty() && (r.library.back() == ',' || r.library.back() == ' ')) r.library.pop_back();
#endif
    return r;
}

// ISHMEM_* variables set here that the runtime does not know (ishmem_init warns about them).
std::vector<std::string> unknown_variables() {
    std::vector<std::string> out;
    for (char** e = environ; *e; ++e) {
        std::string_view kv = *e;
        if (kv.rfind("ISHMEM_", 0) != 0) continue;
        std::string_view name = kv.substr(0, kv.find('='));
        bool known = false;
        for (const config_var& v : config_vars) known = known || name == v.name;
        if (!known) out.emplace_back(name);
    }
    return out;
}

std::string api_version() { return std::to_string(ISHMEM_MAJOR_VERSION) + "." + std::to_string(ISHMEM_MINOR_VERSION); }

std::vector<std::string> backends(const cuda_report& c) {
    std::vector<std::string> b{"host"};
    if (c.built) b.emplace_back("cuda");
    return b;
}

// ---- text ----

void print_text(const cuda_report& c, const mpi_report& m) {
    printf("ishmem %s (%s), API %s, headers %d.%d.%d\n", ISHMEM_VERSION, ISHMEM_VENDOR_STRING, api_version().c_str(),
           ISHMEM_MAJOR_VERSION, ISHMEM_MINOR_VERSION, ISHMEM_PATCH_VERSION);
    std::string b;
    for (const std::string& s : backends(c)) b += (b.empty() ? "" : ", ") + s;
    printf("  backends built:  %s\n", b.c_str());
    printf("  MPI bootstrap:   %s\n", m.built ? "built (ishmem::mpi, libishmem_mpi)" : "not built");

    printf("\nCUDA\n");
    if (!c.built) {
        printf("  not built (library configured without ISHMEM_ENABLE_CUDA)\n");
    } else {
        printf("  runtime:         %s (linked statically)\n", c.runtime_version.c_str());
        printf("  driver:          %s\n", c.driver_version.empty() ? "none" : c.driver_version.c_str());
        if (c.status != "ok") printf("  %s\n", c.status.c_str());
        for (const gpu& g : c.gpus)
            printf("  GPU %d: %s, PCI %s, %.1f GiB, compute capability %d.%d\n", g.index, g.name.c_str(),
                   g.pci_bus_id.c_str(), static_cast<double>(g.memory_bytes) / (1ull << 30), g.cc_major, g.cc_minor);
        if (!c.peers.empty()) {
            printf("  peer access (from -> to: access, native atomics):\n");
            for (const peer_link& l : c.peers)
                printf("    %d -> %d: %s, %s\n", l.from, l.to, l.access ? "yes" : "no",
                       l.native_atomics ? "yes" : "no");
        }
    }

    printf("\nMPI\n");
    if (m.built)
        printf("  library:         %s\n", m.library.c_str());
    else
        printf("  not built (MPI was not found when ishmem was configured)\n");

    printf("\nEnvironment (read by ishmem_init)\n");
    for (const config_var& v : config_vars) {
        const char* now = getenv(v.name);
        printf("  %-28s default %-8s current %s\n      %s\n", v.name, v.default_value, now ? now : "(default)", v.doc);
    }
    for (const std::string& name : unknown_variables())
        printf("  %-28s set, but unknown to ishmem (ignored)\n", name.c_str());
}

// ---- JSON ----

std::string quoted(std::string_view s) {
    std::string o = "\"";
    for (unsigned char ch : s) {
        switch (ch) {
            case '"':
                o += "\\\"";
                break;
            case '\\':
                o += "\\\\";
                break;
            case '\n':
                o += "\\n";
                break;
            case '\r':
                o += "\\r";
                break;
            case '\t':
                o += "\\t";
                break;
            default:
                if (ch < 0x20) {
                    char u[8];
                    snprintf(u, sizeof u, "\\u%04x", ch);
                    o += u;
                } else {
                    o += static_cast<char>(ch);  // UTF-8 passes through, which JSON allows
                }
        }
    }
    return o + "\"";
}

const char* boolean(bool b) { return b ? "true" : "false"; }

std::string or_null(const std::string& s) { return s.empty() ? "null" : quoted(s); }

void print_json(const cuda_report& c, const mpi_report& m) {
    printf(
        "{\n  \"ishmem\": {\"version\": %s, \"vendor\": %s, \"api_version\": %s, \"major\": %d, \"minor\": %d, "
        "\"patch\": %d},\n",
        quoted(ISHMEM_VERSION).c_str(), quoted(ISHMEM_VENDOR_STRING).c_str(), quoted(api_version()).c_str(),
        ISHMEM_MAJOR_VERSION, ISHMEM_MINOR_VERSION, ISHMEM_PATCH_VERSION);
    std::string b;
    for (const std::string& s : backends(c)) b += (b.empty() ? "" : ", ") + quoted(s);
    printf("  \"build\": {\"backends\": [%s], \"cuda\": %s, \"mpi_bootstrap\": %s},\n", b.c_str(), boolean(c.built),
           boolean(m.built));

    printf("  \"cuda\": {\"built\": %s", boolean(c.built));
    if (c.built) {
        printf(", \"runtime_version\": %s, \"driver_version\": %s, \"status\": %s, \"devices\": [",
               or_null(c.runtime_version).c_str(), or_null(c.driver_version).c_str(), quoted(c.status).c_str());
        for (size_t i = 0; i < c.gpus.size(); ++i) {
            const gpu& g = c.gpus[i];
            printf(
                "%s\n    {\"index\": %d, \"name\": %s, \"pci_bus_id\": %s, \"memory_bytes\": %llu, "
                "\"compute_capability\": \"%d.%d\"}",
                i ? "," : "", g.index, quoted(g.name).c_str(), quoted(g.pci_bus_id).c_str(), g.memory_bytes, g.cc_major,
                g.cc_minor);
        }
        printf("], \"peers\": [");
        for (size_t i = 0; i < c.peers.size(); ++i) {
            const peer_link& l = c.peers[i];
            printf("%s\n    {\"from\": %d, \"to\": %d, \"access\": %s, \"native_atomics\": %s}", i ? "," : "", l.from,
                   l.to, boolean(l.access), boolean(l.native_atomics));
        }
        printf("]");
    }
    printf("},\n");

    printf("  \"mpi\": {\"built\": %s, \"library\": %s},\n", boolean(m.built), or_null(m.library).c_str());

    printf("  \"environment\": [");
    bool first = true;
    for (const config_var& v : config_vars) {
        const char* now = getenv(v.name);
        printf("%s\n    {\"name\": %s, \"default\": %s, \"value\": %s, \"doc\": %s}", first ? "" : ",",
               quoted(v.name).c_str(), quoted(v.default_value).c_str(), now ? quoted(now).c_str() : "null",
               quoted(v.doc).c_str());
        first = false;
    }
    printf("],\n  \"unknown_environment\": [");
    first = true;
    for (const std::string& name : unknown_variables()) {
        printf("%s%s", first ? "" : ", ", quoted(name).c_str());
        first = false;
    }
    printf("]\n}\n");
}

void print_help() {
    printf(
        "Usage: ishmem-info [--json]\n"
        "\n"
        "Prints what this ishmem is and what this machine has of it: the version, the backends and MPI\n"
        "bootstrap built in, the GPUs (names, PCI bus ids, memory, peer access and native atomics between\n"
        "each pair), the MPI library, and each ISHMEM_* environment variable with its default, its value\n"
        "here and its meaning. Starts no job; needs no launcher.\n"
        "\n"
        "Options:\n"
        "  --json             print one JSON object instead of text\n"
        "  -h, --help         print this help and exit\n"
        "  -V, --version      print the version and exit\n"
        "\n"
        "Exit status: 0; 2 for a usage error. A machine without a CUDA driver or GPU is reported, not an error.\n");
}

}  // namespace

int main(int argc, char** argv) {
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--json") {
            json = true;
        } else if (a == "-h" || a == "--help") {
            print_help();
            return 0;
        } else if (a == "-V" || a == "--version") {
            printf("ishmem-info (ishmem) %s\n", ISHMEM_VERSION);
            return 0;
        } else {
            fprintf(stderr,
                    "ishmem-info: unknown option '%s'\nUsage: ishmem-info [--json]   (ishmem-info --help for more)\n",
                    argv[i]);
            return exit_usage;
        }
    }
    const cuda_report c = probe_cuda();
    const mpi_report m = probe_mpi();
    if (json)
        print_json(c, m);
    else
        print_text(c, m);
    return 0;
}
