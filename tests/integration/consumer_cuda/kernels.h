// The device half of the CUDA consumer: what main.cu launches.
#pragma once
#include <cstdint>

// Every PE's block puts `count` ints into its right neighbour's `ring` and signals it, adds its PE
// number into PE 0's `sum` with an atomic, and waits for its left neighbour's signal.
void launch_ring(int* ring, uint64_t* flag, long* sum, int count);
