// KernelOperators: every operator the comparison and string kernels take, for tests that run each kernel with
// each of them.

import CColumnar

public enum KernelOperators {
    public static let compare: [columnar_compare_op] = [
        COLUMNAR_COMPARE_EQ, COLUMNAR_COMPARE_NE, COLUMNAR_COMPARE_LT, COLUMNAR_COMPARE_LE, COLUMNAR_COMPARE_GT,
        COLUMNAR_COMPARE_GE,
    ]

    public static let string: [columnar_string_op] = [
        COLUMNAR_STRING_EQ, COLUMNAR_STRING_NE, COLUMNAR_STRING_BEGINS_WITH, COLUMNAR_STRING_ENDS_WITH,
        COLUMNAR_STRING_CONTAINS, COLUMNAR_STRING_LIKE, COLUMNAR_STRING_LT, COLUMNAR_STRING_LE, COLUMNAR_STRING_GT,
        COLUMNAR_STRING_GE,
    ]
}
