/* The generated headers alone must compile cleanly (C99 and C++11, -Wall -Wextra -Werror), also
 * together, and after dlpack.h (define AGC_TEST_DLPACK_FIRST). */
#ifdef AGC_TEST_DLPACK_FIRST
#include "dlpack_min.h"
#endif
#include "cabi.h"
#include "second.h"

int (*const affine_ptr)(const DLTensor*, const DLTensor*, const DLTensor*, DLTensor**, DLTensor**) = cabi_affine;
int (*const scale_rows_ptr)(const DLTensor*, const DLTensor*, DLTensor**) = second_scale_rows;
const char* (*const last_error_ptr)(void) = cabi_last_error;
void (*const release_ptr)(DLTensor*) = cabi_release;
const char* (*const metadata_ptr)(void) = cabi_metadata;
const int invalid_argument = AGC_STATUS_INVALID_ARGUMENT;
