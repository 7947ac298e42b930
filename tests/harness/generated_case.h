// What generated test tables (generated/tests/*_cases.cpp) are made of.
#pragma once
#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace ishmem_testing {

// One generated case: the entry point it covers and a function that runs the family's pattern on it.
struct GeneratedCase {
    const char* label;  // e.g. "ishmem_int_put" or "ishmem_put<int>"
    void (*run)();
};

inline void PrintTo(const GeneratedCase& c, std::ostream* os) { *os << c.label; }

// gtest parameter names allow only [A-Za-z0-9_]: "ishmem_put<long long>" -> "ishmem_put_long_long_".
struct GeneratedCaseName {
    std::string operator()(const ::testing::TestParamInfo<GeneratedCase>& info) const {
        std::string name = info.param.label;
        for (char& ch : name)
            if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        return name;
    }
};

// Threads per work-group when a generated case calls a _work_group entry point.
inline constexpr size_t group_size_for_tests = 7;

}  // namespace ishmem_testing
