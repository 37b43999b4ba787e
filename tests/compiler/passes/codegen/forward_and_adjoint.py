# codegen: one translation unit with the forward body, its entries, and the adjoint: the forward
# sweep pushes what the reverse sweep pops, and the reverse sweep applies adj_sin.
# RUN: codegen
# CHECK: ; after codegen
# CHECK: struct k_args {
# CHECK: static WP_FUNC void k_body(
# CHECK: (*wp::addr<WpC>(y_1, i_2)) = wp::sin((*wp::addr<WpC>(x_0, i_2)));
# CHECK: extern "C" __global__ void k_cuda(
# CHECK: extern "C" void k_cpu_range(
# CHECK: struct k_args_adj {
# CHECK-NEXT:     k_args primal;
# CHECK-NEXT:     wp::array_t<wp::float32> adj_x;
# CHECK-NEXT:     wp::array_t<wp::float32> adj_y;
# CHECK: static WP_FUNC void k_body_backward(
# CHECK: tape_.push(i_2);
# CHECK: wp::adj_sin(t_1000000, adj_t_1000000, adj_t_1000001);
# CHECK: tape_.pop(i_2);
# CHECK: extern "C" __global__ void k_cuda_backward(
import weft as wp

@wp.kernel
def k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.sin(x[i])
