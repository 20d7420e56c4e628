# fuzz_frontend: a syntax error at a multi-byte character: its one-byte span ended inside
# the character and rendering the diagnostic panicked (byte index is not a char boundary).
import agc
x = 1 😀
