/*
 * main.cpp - the "nest" e2e test: a libstdc++-heavy loop. Each iteration
 * formats an int and a double through an ostringstream, so the program
 * calls libstdc++ a known number of times and libstdc++ in turn calls
 * libc (malloc, memcpy, vsnprintf, ...) inside those calls.
 * checks/nest.py wants the exact counts and the nesting figures to agree:
 * the program's calls into libstdc++ lose from their exclusive time what
 * libstdc++'s calls out of it take.
 */
#include <cstdio>
#include <sstream>
#include <string>

int main()
{
	size_t total = 0;
	for (int i = 0; i < 50000; i++) {
		std::ostringstream os;
		os << i << ' ' << i * 0.5;
		std::string s = os.str();
		total += s.size();
	}
	std::printf("%zu\n", total);
	return 0;
}
