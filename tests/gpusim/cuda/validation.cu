// tests/gpusim/cuda/validation.cu — the validation kernels of gpusim/validation/kernels.cu, as
// they are (the H200's SASS counts in bench/results/gpusim-h200/ are of this code), for the
// SASS estimate tests (sass_cfg_test.cpp).
#include "../../../gpusim/validation/kernels.cu"
