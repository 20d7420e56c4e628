# fuzz_frontend: a byte that is not UTF-8 (0xff on the last line) was
# "error: cannot read the model" without a file:line:col.
import agc
x = 1ÿ
