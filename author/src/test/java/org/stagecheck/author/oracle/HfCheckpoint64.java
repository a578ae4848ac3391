package org.stagecheck.author.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Hugging Face model directory read by the oracle alone: {@code config.json} and the weights,
 * either {@code model.safetensors} (preferred when present, as {@code from_pretrained} does) or
 * the shards named by {@code model.safetensors.index.json}'s {@code weight_map}.
 */
public final class HfCheckpoint64 {
    static final String SINGLE = "model.safetensors";
    static final String INDEX = "model.safetensors.index.json";

    private final Path dir;
    private final HfConfig64 config;
    private final Map<String, SafetensorsFile64> fileOf;

    private HfCheckpoint64(Path dir, HfConfig64 config, Map<String, SafetensorsFile64> fileOf) {
        this.dir = dir;
        this.config = config;
        this.fileOf = fileOf;
    }

    public static HfCheckpoint64 open(Path dir) {
        Path configFile = dir.resolve("config.json");
        HfConfig64 config = HfConfig64.parse(readJson(configFile), configFile.toString());
        Map<String, SafetensorsFile64> fileOf = new LinkedHashMap<>();
        if (Files.isRegularFile(dir.resolve(SINGLE))) {
            SafetensorsFile64 f = SafetensorsFile64.open(dir.resolve(SINGLE));
            f.names().forEach(n -> fileOf.put(n, f));
        } else if (Files.isRegularFile(dir.resolve(INDEX))) {
            readShards(dir, fileOf);
        } else {
            throw new OracleInputException(dir + ": neither " + SINGLE + " nor " + INDEX);
        }
        return new HfCheckpoint64(dir, config, fileOf);
    }

    private static void readShards(Path dir, Map<String, SafetensorsFile64> fileOf) {
        Path index = dir.resolve(INDEX);
        JsonNode map = readJson(index).get("weight_map");
        if (map == null || !map.isObject()) {
            throw new OracleInputException(index + ": no weight_map object");
        }
        Map<String, SafetensorsFile64> shards = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String file = e.getValue().asText("");
            if (!e.getValue().isTextual() || file.isEmpty() || file.contains("/") || file.contains("\\") || file.equals("..") || file.equals(".")) {
                throw new OracleInputException(index + ": weight_map." + e.getKey() + " is " + e.getValue() + ", not a file name in the directory");
            }
            SafetensorsFile64 shard = shards.computeIfAbsent(file, f -> SafetensorsFile64.open(dir.resolve(f)));
            if (!shard.has(e.getKey())) {
                throw new OracleInputException(index + ": weight_map puts " + e.getKey() + " in " + file + ", which has no such tensor");
            }
            fileOf.put(e.getKey(), shard);
        }
    }

    private static JsonNode readJson(Path file) {
        try {
            return new ObjectMapper().readTree(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new OracleInputException(file + ": cannot read as JSON: " + e.getMessage(), e);
        }
    }

    public Path dir() {
        return dir;
    }

    public HfConfig64 config() {
        return config;
    }

    public boolean has(String name) {
        return fileOf.containsKey(name);
    }

    /** The safetensors dtype name of a tensor (F32, BF16, ...). */
    public String dtype(String name) {
        return file(name).dtype(name);
    }

    /** The tensor's elements, row-major, widened to double; refused unless its shape is {@code shape}. */
    public double[] tensor(String name, int... shape) {
        SafetensorsFile64 f = file(name);
        int[] actual = f.shape(name);
        if (!Arrays.equals(actual, shape)) {
            throw new OracleInputException(f.path() + ": tensor " + name + " has shape " + Arrays.toString(actual) + ", the config implies " + Arrays.toString(shape));
        }
        return f.read(name);
    }

    private SafetensorsFile64 file(String name) {
        SafetensorsFile64 f = fileOf.get(name);
        if (f == null) {
            throw new OracleInputException(dir + ": no tensor " + name + " in the checkpoint");
        }
        return f;
    }
}
