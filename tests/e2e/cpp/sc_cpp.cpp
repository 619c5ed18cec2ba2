// sc_cpp.cpp - libsc_cpp.so for the "cpp" e2e test: a function that throws
// an exception the application catches (the unwinder must get through the
// interceptor's frames), and std::string / std::map work done in the library.
#include <sstream>
#include <stdexcept>
#include "sc_cpp.h"

namespace sc {
struct bad_value : std::runtime_error {
	explicit bad_value(const std::string &m) : std::runtime_error(m) {}
};

int check(int v)
{
	if (v & 1)
		throw bad_value("odd value " + std::to_string(v));
	return v / 2;
}

std::map<std::string, int> count_words(const std::string &text)
{
	std::map<std::string, int> m;
	std::istringstream in(text);
	std::string w;
	while (in >> w)
		m[w]++;
	return m;
}
} // namespace sc

extern "C" int sc_check_c(int v)
{
	return sc::check(v);
}
