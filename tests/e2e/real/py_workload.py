# py_workload.py - the python3 real-program e2e workload: exercises C
# extension modules (json, math, _decimal, hashlib, zlib, ctypes calling libc
# strlen through CDLL(None)) and prints deterministic results.
import ctypes
import decimal
import hashlib
import json
import math
import zlib

data = {"k%03d" % i: [i, i * 0.5, str(i) * 3] for i in range(400)}
text = json.dumps(data, sort_keys=True)
back = json.loads(text)
print("json", len(text), back["k123"], back == data)

print("math", repr(math.fsum(math.sin(i) for i in range(1000))), math.factorial(30),
      repr(math.gamma(4.5)), math.gcd(2 ** 61 - 1, 2 ** 31 - 1))

decimal.getcontext().prec = 50
d = decimal.Decimal(1)
for i in range(1, 200):
    d += decimal.Decimal(1) / decimal.Decimal(i)
print("decimal", d, decimal.Decimal(2).sqrt())

h = hashlib.sha256()
for i in range(2000):
    h.update(b"block %d " % i)
print("sha256", h.hexdigest(), hashlib.md5(text.encode()).hexdigest())

z = zlib.compress(text.encode() * 20, 9)
print("zlib", len(z), zlib.crc32(z), zlib.decompress(z) == text.encode() * 20)

libc = ctypes.CDLL(None)
libc.strlen.restype = ctypes.c_size_t
libc.strlen.argtypes = [ctypes.c_char_p]
total = 0
for i in range(3001):
    total += libc.strlen(b"x" * (i % 50))
print("ctypes strlen", total)
