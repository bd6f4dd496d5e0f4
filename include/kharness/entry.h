/* kharness entry ABI, version 1: how the worker calls a built candidate.
 *
 * A candidate's entry function has the typed signature of kernel.h. kharness does
 * not call it directly: it compiles a generated shim next to it (build/entry_shim)
 * that exports the C functions below from the candidate's shared library. The
 * worker dlopen()s the library, confirms kh_abi_version() and kh_signature(), and
 * calls kh_entry_v1() with one kh_arg per definition parameter (inputs in
 * definition order, scalars among them, then outputs). The stream travels
 * separately because it is not a definition parameter.
 *
 * This header is C so that any loader can use it.
 */
#ifndef KHARNESS_ENTRY_H_
#define KHARNESS_ENTRY_H_

#include <dlpack/dlpack.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* Which member of kh_arg.value is set. 0 is left unused so that zeroed memory is
 * rejected rather than read as a tensor. */
typedef enum kh_arg_kind {
  KH_ARG_TENSOR = 1,  /* value.tensor: input (read-only by contract) or output */
  KH_ARG_INT64 = 2,   /* value.i64: integer scalars, narrowed by the shim */
  KH_ARG_FLOAT64 = 3, /* value.f64: float scalars, narrowed by the shim */
  KH_ARG_BOOL = 4     /* value.b */
} kh_arg_kind;

typedef struct kh_arg {
  int32_t kind;  /* a kh_arg_kind */
  int32_t index; /* the parameter's position in ABI order; the shim checks it */
  union {
    DLTensor* tensor;
    int64_t i64;
    double f64;
    bool b;
  } value;
} kh_arg;

/* Return codes of kh_entry_v1 besides the kernel's own int result. A kernel that
 * returns these values itself is indistinguishable; kh_last_error() tells. */
#define KH_ENTRY_OK 0
#define KH_ENTRY_BAD_ARGS (-1000)  /* the shim rejected args/nargs; see kh_last_error */
#define KH_ENTRY_EXCEPTION (-1001) /* the kernel threw; see kh_last_error */

/* How kh_last_error() starts when a value-returning entry (tvm-ffi binding) returned an
 * output of the wrong dtype or shape; the orchestrator reports INCORRECT_DTYPE or
 * INCORRECT_SHAPE for them instead of RUNTIME_ERROR. */
#define KH_WRONG_OUTPUT_DTYPE "kharness: wrong output dtype"
#define KH_WRONG_OUTPUT_SHAPE "kharness: wrong output shape"

/* Exported symbol names and their types, for dlsym(). */
#define KH_SYMBOL_ENTRY_V1 "kh_entry_v1"
#define KH_SYMBOL_ABI_VERSION "kh_abi_version"
#define KH_SYMBOL_SIGNATURE "kh_signature"
#define KH_SYMBOL_LAST_ERROR "kh_last_error"

#ifdef __cplusplus
extern "C" {
#endif

/* Calls the entry function. Returns 0, the kernel's own non-zero int result, or
 * one of the KH_ENTRY_* codes. */
typedef int (*kh_entry_v1_fn)(const kh_arg* args, int nargs, void* stream);
/* KH_ABI_VERSION of the kernel.h the candidate was built against. */
typedef int (*kh_abi_version_fn)(void);
/* The signature text the library was built for (kh::signature_text); a worker
 * compares it with the one it expects before calling. */
typedef const char* (*kh_signature_fn)(void);
/* The message of the last failed kh_entry_v1 call on this thread, "" if none. */
typedef const char* (*kh_last_error_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* KHARNESS_ENTRY_H_ */
