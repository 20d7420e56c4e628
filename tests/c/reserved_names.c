/* The header of tests/c/reserved_names.py after the standard headers that define the names its
 * parameters are called in Python: it must compile with -Wall -Wextra -Werror -pedantic. */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reserved_names.h"

int main(void) {
    const char* meta = reserved_names_metadata();
    return meta[0] == '{' ? 0 : 1;
}
