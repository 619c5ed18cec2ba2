// main.cpp - the "cpp" e2e program: std::string/std::map through libstdc++,
// 2000 calls of sc::check of which 1000 throw and are caught here, and 500
// calls of the extern "C" wrapper sc_check_c of which 250 throw. Output must
// be identical under scaler; the counts are exact (see expect).
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include "sc_cpp.h"

int main()
{
	long sum = 0, caught = 0, len = 0;
	for (int i = 0; i < 2000; i++) {
		try {
			sum += sc::check(i);
		} catch (const std::runtime_error &e) {
			caught++;
			len += (long)std::string(e.what()).size();
		}
	}
	for (int i = 0; i < 500; i++) {
		try {
			sum += sc_check_c(i);
		} catch (const std::exception &e) {
			caught++;
		}
	}
	std::string text;
	for (int i = 0; i < 300; i++)
		text += "w" + std::to_string(i % 17) + " ";
	std::map<std::string, int> m = sc::count_words(text);
	std::map<int, std::string> inv;
	for (const auto &kv : m)
		inv[kv.second * 100 + (int)kv.first.size()] += kv.first + ",";
	std::printf("sum=%ld caught=%ld len=%ld words=%zu\n", sum, caught, len, m.size());
	for (const auto &kv : inv)
		std::printf("%d %s\n", kv.first, kv.second.c_str());
	return 0;
}
