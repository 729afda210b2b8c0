// Statistics over a generated series of readings.
#pragma once
#include <cstdint>
#include <vector>

std::vector<double> make_readings(std::size_t n, std::uint32_t seed);
std::vector<int> bucket_readings(const std::vector<double>& v, int buckets);
double mean(const std::vector<double>& v);
double third_moment(const std::vector<double>& v, double centre);
long count_equal_pairs(const std::vector<int>& v);
