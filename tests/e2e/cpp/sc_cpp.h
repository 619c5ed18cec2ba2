// sc_cpp.h - interface of libsc_cpp.so (the "cpp" e2e test).
#ifndef SC_CPP_H
#define SC_CPP_H
#include <map>
#include <string>

namespace sc {
// throws sc::bad_value (a std::runtime_error) when v is odd
int check(int v);
// returns a word-frequency map of text
std::map<std::string, int> count_words(const std::string &text);
}
extern "C" int sc_check_c(int v);  // same as sc::check, unmangled name
#endif
