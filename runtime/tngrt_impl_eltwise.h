/*
 * tngrt_impl_eltwise.h - the scalar semantics of every elementwise op of
 * libtngcrt, written once: one row per op. No include guard: it is a list
 * that each user expands with its own definitions of the row macros.
 *
 * tngrt_kernels.h makes the TngrtUnaryOp and TngrtBinaryOp enums of it
 * (in row order), and tngrt_kernel_impl.h every per-op switch: the float
 * compute path (float32 loops, the half-precision blocks, the per-element
 * path of other dtypes, the fused GEMM epilogues and the fused elementwise
 * loops generated code holds all call tngrt_impl__unf / tngrt_impl__binf or
 * expand the same expression), the int64 compute path and the test of
 * whether an op has one. A switch made of this list has no default, so a
 * row cannot lack a case.
 *
 * TNGRT_UNARY(NAME, FLOAT, INT)
 *   FLOAT: the float result, an expression of x (float) and the op's
 *   parameters p and q (float);
 *   INT: TNGRT_INT(e), the exact int64 result, an expression of x (int64),
 *   p (double), lo and hi (p and q as int64); TNGRT_INT_IF(c, e), the same
 *   where the condition c on p holds; or TNGRT_FLOAT_ONLY: integer outputs
 *   get the float result, truncated.
 * TNGRT_BINARY(NAME, FLOAT, INT)
 *   FLOAT: an expression of a, b and alpha (float); INT: of a, b and alpha
 *   (int64), wrapping to int64 (ua, ub: a and b as uint64).
 */
TNGRT_UNARY(IDENTITY,   x, TNGRT_INT(x))   /* cast/copy: out = x converted to out's dtype */
TNGRT_UNARY(NEG,        -x, TNGRT_INT(tngrt_impl__wrap(0u - (uint64_t)x)))
TNGRT_UNARY(ABS,        fabsf(x), TNGRT_INT(x < 0 ? tngrt_impl__wrap(0u - (uint64_t)x) : x))
TNGRT_UNARY(EXP,        tngrt_impl__exp(x), TNGRT_FLOAT_ONLY)
TNGRT_UNARY(LOG,        tngrt_impl__log(x), TNGRT_FLOAT_ONLY)
TNGRT_UNARY(SQRT,       sqrtf(x), TNGRT_FLOAT_ONLY)
TNGRT_UNARY(RSQRT,      1.0f / sqrtf(x), TNGRT_FLOAT_ONLY)
TNGRT_UNARY(RELU,       x < 0.0f ? 0.0f : x, TNGRT_INT(x < 0 ? 0 : x))
/* 0.5 x (1 + erf(x / sqrt 2)) */
TNGRT_UNARY(GELU,       tngrt_impl__gelu(x), TNGRT_FLOAT_ONLY)
/* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
TNGRT_UNARY(GELU_TANH,  tngrt_impl__gelu_tanh(x), TNGRT_FLOAT_ONLY)
TNGRT_UNARY(SILU,       tngrt_impl__silu(x), TNGRT_FLOAT_ONLY)   /* x * sigmoid(x) */
TNGRT_UNARY(SIGMOID,    tngrt_impl__sigmoid(x), TNGRT_FLOAT_ONLY)
TNGRT_UNARY(TANH,       tngrt_impl__tanh(x), TNGRT_FLOAT_ONLY)
/* x ** p; exact in int64 (square and multiply, wrapping) for an integer p >= 0 */
TNGRT_UNARY(POW,        powf(x, p),
            TNGRT_INT_IF(p >= 0.0 && p < 9.0e18 && p == floor(p), tngrt_impl__powi(x, (int64_t)p)))
TNGRT_UNARY(COS,        cosf(x), TNGRT_FLOAT_ONLY)
TNGRT_UNARY(SIN,        sinf(x), TNGRT_FLOAT_ONLY)
TNGRT_UNARY(RECIPROCAL, 1.0f / x, TNGRT_FLOAT_ONLY)
TNGRT_UNARY(SQUARE,     x * x, TNGRT_INT(tngrt_impl__wrap((uint64_t)x * (uint64_t)x)))   /* integers wrap */
TNGRT_UNARY(SIGN,       tngrt_impl__sign(x), TNGRT_INT((x > 0) - (x < 0)))   /* -1, 0 or 1 (NaN: 0) */
TNGRT_UNARY(FLOOR,      floorf(x), TNGRT_INT(x))
TNGRT_UNARY(CEIL,       ceilf(x), TNGRT_INT(x))
/* to the nearest integer, halves to even (rintf in the default rounding mode) */
TNGRT_UNARY(ROUND,      rintf(x), TNGRT_INT(x))
/* the accurate erf (tngrt_impl__erf, GELU's, is faster and coarser) */
TNGRT_UNARY(ERF,        tngrt_impl__erf_acc(x), TNGRT_FLOAT_ONLY)
TNGRT_UNARY(LOG1P,      log1pf(x), TNGRT_FLOAT_ONLY)   /* log(1 + x) */
TNGRT_UNARY(EXPM1,      expm1f(x), TNGRT_FLOAT_ONLY)   /* exp(x) - 1 */
/* x where p x > q, else log1p(exp(p x)) / p (p beta, q threshold) */
TNGRT_UNARY(SOFTPLUS,   tngrt_impl__softplus(x, p, q), TNGRT_FLOAT_ONLY)
TNGRT_UNARY(LEAKY_RELU, x > 0.0f ? x : x * p, TNGRT_FLOAT_ONLY)
TNGRT_UNARY(HARDSWISH,  tngrt_impl__hardswish(x), TNGRT_FLOAT_ONLY)   /* x * min(max(x + 3, 0), 6) / 6 */
TNGRT_UNARY(MISH,       tngrt_impl__mish(x), TNGRT_FLOAT_ONLY)   /* x * tanh(log1p(exp(x))) */
/* min(max(x, p), q) (q when p > q); NaN stays NaN; integer bounds for int64 */
TNGRT_UNARY(CLAMP,      tngrt_impl__clamp(x, p, q), TNGRT_INT(tngrt_impl__clampi(x, lo, hi)))
TNGRT_UNARY(CLAMP_MIN,  x < p ? p : x, TNGRT_INT(x < lo ? lo : x))   /* max(x, p) */
TNGRT_UNARY(CLAMP_MAX,  x > p ? p : x, TNGRT_INT(x > lo ? lo : x))   /* min(x, p) */
TNGRT_UNARY(LOG2,       log2f(x), TNGRT_FLOAT_ONLY)
TNGRT_UNARY(EXP2,       exp2f(x), TNGRT_FLOAT_ONLY)

TNGRT_BINARY(ADD,       a + alpha * b, tngrt_impl__wrap(ua + (uint64_t)alpha * ub))
TNGRT_BINARY(SUB,       a - alpha * b, tngrt_impl__wrap(ua - (uint64_t)alpha * ub))
TNGRT_BINARY(MUL,       a * b, tngrt_impl__wrap(ua * ub))
/* float: true division; integer: floor division, x / 0 gives 0, never a trap */
TNGRT_BINARY(DIV,       a / b, tngrt_impl__floordiv(a, b))
/* torch.maximum / torch.minimum: NaN when either is NaN */
TNGRT_BINARY(MAX,       a > b || a != a ? a : b, a > b ? a : b)
TNGRT_BINARY(MIN,       a < b || a != a ? a : b, a < b ? a : b)
/* a ** b (float: powf; integer: exact, wrapping; a negative exponent gives
 * 1 / a truncated: 0 but for 1 and -1) */
TNGRT_BINARY(POW,       powf(a, b), tngrt_impl__powi(a, b))
/* log(exp(a) + exp(b)) as max(a, b) + log1p(exp(-|a - b|)); a when a and b
 * are the same infinity; NaN when either is NaN. Integer operands are not
 * compiled (the row's dtype rule): the int64 form is the float one,
 * saturated. */
TNGRT_BINARY(LOGADDEXP, (a == b && (a == INFINITY || a == -INFINITY)) ? a
                        : fmaxf(a, b) + log1pf(expf(-fabsf(a - b))),
             tngrt_impl__f2i(fmax((double)a, (double)b) + log1p(exp(-fabs((double)a - (double)b)))))
/* log2(2 ** a + 2 ** b) as max(a, b) + log1p(2 ** -|a - b|) / log(2), as
 * LOGADDEXP */
TNGRT_BINARY(LOGADDEXP2, (a == b && (a == INFINITY || a == -INFINITY)) ? a
                         : fmaxf(a, b) + log1pf(exp2f(-fabsf(a - b))) * 1.44269504088896340736f,
             tngrt_impl__f2i(fmax((double)a, (double)b) +
                             log1p(exp2(-fabs((double)a - (double)b))) * 1.44269504088896340736))
