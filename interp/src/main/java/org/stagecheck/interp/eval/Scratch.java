package org.stagecheck.interp.eval;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The working columns of compiled expressions ({@link CompiledExpr}), reused from stage to stage
 * and run to run instead of allocated per expression node. Column {@code k} of a type is one
 * array, grown (never shrunk) to the largest element count asked of it, so what is held is the
 * largest expression's working set, not the sum over stages. One evaluation uses one instance at
 * a time; the prepared program keeps a pool of them ({@link ShapeCache#takeScratch()}), so
 * concurrent runs never share one.
 */
final class Scratch {
    private final Map<ColType, List<Object>> columns = new EnumMap<>(ColType.class);

    /** Column {@code ordinal} of {@code type} with at least {@code n} elements (its values are left over). */
    Object column(ColType type, int ordinal, int n) {
        List<Object> list = columns.computeIfAbsent(type, t -> new ArrayList<>());
        while (list.size() <= ordinal) {
            list.add(null);
        }
        Object c = list.get(ordinal);
        if (c == null || type.length(c) < n) {
            c = type.newColumn(n);
            list.set(ordinal, c);
        }
        return c;
    }
}
