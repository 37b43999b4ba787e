// Math functions as NVRTC lowers them (libdevice inlined), single and double precision.
extern "C" __global__ void math_f32(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    out[i * 8 + 0] = sinf(x);
    out[i * 8 + 1] = cosf(x);
    out[i * 8 + 2] = expf(x * 0.1f);
    out[i * 8 + 3] = sqrtf(fabsf(x));
    out[i * 8 + 4] = powf(fabsf(x) + 0.5f, 1.7f);
    out[i * 8 + 5] = logf(fabsf(x) + 1.0f);
    out[i * 8 + 6] = x / (x * x + 1.0f);
    out[i * 8 + 7] = tanhf(x * 0.3f);
}

extern "C" __global__ void math_f64(const double* in, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = in[i];
    out[i * 6 + 0] = sin(x);
    out[i * 6 + 1] = exp(x * 0.1);
    out[i * 6 + 2] = sqrt(fabs(x));
    out[i * 6 + 3] = pow(fabs(x) + 0.5, 1.7);
    out[i * 6 + 4] = x / (x * x + 1.0);
    out[i * 6 + 5] = (double)(long long)(x * 1000.0) + fma(x, x, 1.0);
}
