package org.stagecheck.golden.derive;

/**
 * One node of an expression evaluated for every output element: the true value (float64) and a
 * bound on how far any conforming f32 computation of it may be from that value.
 *
 * @param type  FLOAT, INT or BOOL (the value type of the node)
 * @param v     the true values (INT and BOOL exactly, BOOL as 0 or 1)
 * @param e     the error bounds; for BOOL 1 where the comparison could come out either way, else 0
 */
record BoundCol(Type type, double[] v, double[] e) {
    enum Type { FLOAT, INT, BOOL }
}
