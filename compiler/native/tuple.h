// compiler/native/tuple.h: tuple_t, the value of a builtin or user function that returns several
// values (quat_to_axis_angle, wp.tid() of a 2-4-D launch, `return a, b` in a @wp.func).
//
// A tuple_t<A, B, C> is a plain aggregate laid out as { A head; { B head; { C head; } } }, so it
// has no padding beyond the natural alignment of its members and is built with brace elision:
//
//     wp::tuple_t<wp::vec_t<3,float>, float> t{axis, angle};
//     float a = t.template get<1>();      // or wp::get<1>(t)
//
// It also holds the small compile-time helpers the other headers share (enable_if, is_same),
// because no system header (<type_traits>) may be included.
#pragma once

#include "core.h"

namespace wp {

// [SECTION] compile-time helpers (a tiny <type_traits>)
template <bool B, typename T = int>
struct enable_if {};
template <typename T>
struct enable_if<true, T> {
    using type = T;
};
template <bool B, typename T = int>
using enable_if_t = typename enable_if<B, T>::type;

template <typename A, typename B>
struct is_same {
    static constexpr bool value = false;
};
template <typename A>
struct is_same<A, A> {
    static constexpr bool value = true;
};

// Makes a template parameter non-deducible, so that `v * 2.0f` deduces T from the vector only.
template <typename T>
struct type_identity {
    using type = T;
};
template <typename T>
using nondeduced_t = typename type_identity<T>::type;

// [SECTION] tuple_t
template <typename... Ts>
struct tuple_t;

template <typename T>
struct tuple_t<T> {
    T head;

    template <int I>
    WP_FUNC T& get() {
        static_assert(I == 0, "tuple_t index out of range");
        return head;
    }
    template <int I>
    WP_FUNC const T& get() const {
        static_assert(I == 0, "tuple_t index out of range");
        return head;
    }
};

template <typename T, typename... Rest>
struct tuple_t<T, Rest...> {
    T head;
    tuple_t<Rest...> tail;

    template <int I>
    WP_FUNC auto& get() {
        if constexpr (I == 0)
            return head;
        else
            return tail.template get<I - 1>();
    }
    template <int I>
    WP_FUNC const auto& get() const {
        if constexpr (I == 0)
            return head;
        else
            return tail.template get<I - 1>();
    }
};

template <int I, typename... Ts>
WP_FUNC auto& get(tuple_t<Ts...>& t) {
    return t.template get<I>();
}
template <int I, typename... Ts>
WP_FUNC const auto& get(const tuple_t<Ts...>& t) {
    return t.template get<I>();
}

}  // namespace wp
