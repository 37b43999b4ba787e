// The table written by gen_host_eval.cpp: one host-compiled evaluation per builtin overload.
#pragma once

struct HostEval {
    int overload;                                    // index in builtin_table().overloads()
    void (*eval)(const void* const* in, void* out);  // arguments and result as raw bytes
};

const HostEval* host_evals(int* n);
