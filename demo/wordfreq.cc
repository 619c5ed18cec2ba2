// wordfreq.cc - the bundled demo: counts word frequencies in generated text
// with two classic mistakes a cross-flow profile makes obvious:
//   * one character at a time through stdio (getc_unlocked is a macro, but
//     fgetc is a call into libc per byte), and
//   * a std::map<std::string,int> (red-black tree), whose every lookup does
//     ~log2(n) string comparisons, each a call to memcmp in libc.
// scaler shows libc.so.6 as the costliest component and fgetc / memcmp at
// the top of its API view, with exact call counts.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

static void generate(FILE *f, int words)
{
    unsigned x = 12345;
    for (int i = 0; i < words; i++) {
        x = x * 1103515245u + 12345u;
        int len = 3 + (x >> 16) % 6;
        for (int k = 0; k < len; k++) {
            x = x * 1103515245u + 12345u;
            fputc('a' + (x >> 16) % 6, f);
        }
        fputc(i % 12 == 11 ? '\n' : ' ', f);
    }
}

int main(int argc, char **argv)
{
    int words = argc > 1 ? atoi(argv[1]) : 300000;
    FILE *f = tmpfile();
    if (!f)
        return 1;
    generate(f, words);
    rewind(f);
    std::map<std::string, int> freq;
    std::string w;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (c == ' ' || c == '\n') {
            if (!w.empty())
                freq[w]++;
            w.clear();
        } else {
            w += (char)c;
        }
    }
    fclose(f);
    std::string best;
    int n = 0;
    for (auto &kv : freq)
        if (kv.second > n) {
            n = kv.second;
            best = kv.first;
        }
    printf("%zu distinct words; most frequent \"%s\" x%d\n", freq.size(), best.c_str(), n);
    return 0;
}
