package org.stagecheck.spec.cert;

import java.util.Map;
import java.util.TreeMap;

/**
 * A claim that this program came from a parent by renaming buffers with {@code map}
 * (parent name to child name). {@code parentHash} (nullable) is the parent's program hash, so a
 * checker handed the wrong parent says so.
 */
public record BufferRemap(String parentHash, Map<String, String> map) {
    public BufferRemap {
        map = java.util.Collections.unmodifiableMap(new TreeMap<>(map));
    }
}
