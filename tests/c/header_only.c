/* The generated header alone must compile cleanly (C99, -Wall -Wextra -Werror). */
#include "cabi.h"

int (*const affine_ptr)(const DLTensor*, const DLTensor*, const DLTensor*, DLTensor**, DLTensor**) = affine;
const char* (*const last_error_ptr)(void) = cabi_last_error;
void (*const release_ptr)(DLTensor*) = cabi_release;
const char* (*const metadata_ptr)(void) = cabi_metadata;
