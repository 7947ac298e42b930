/* Value checks and bounded waits for the C tests: a failed check prints PE, line and values and
   exits nonzero; a wait that is not satisfied within CHECK_WAIT_SECONDS fails the same way. */
#pragma once
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK_WAIT_SECONDS 60

static int check_my_pe = -1;
static int check_failures = 0;

#define CHECK_EQ(expr, expected)                                                                                       \
    do {                                                                                                               \
        long long got_ = (long long)(expr), want_ = (long long)(expected);                                             \
        if (got_ != want_) {                                                                                           \
            fprintf(stderr, "PE %d: %s:%d: %s is %lld, expected %lld\n", check_my_pe, __FILE__, __LINE__, #expr, got_, \
                    want_);                                                                                            \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

static double check_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Polls cond (an expression with a test routine) until it is nonzero, or fails the test. */
#define CHECK_WAIT(cond)                                                                                               \
    do {                                                                                                               \
        double deadline_ = check_now() + CHECK_WAIT_SECONDS;                                                           \
        while (!(cond)) {                                                                                              \
            if (check_now() > deadline_) {                                                                             \
                fprintf(stderr, "PE %d: %s:%d: %s not satisfied after %d s\n", check_my_pe, __FILE__, __LINE__, #cond, \
                        CHECK_WAIT_SECONDS);                                                                           \
                exit(2);                                                                                               \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)
