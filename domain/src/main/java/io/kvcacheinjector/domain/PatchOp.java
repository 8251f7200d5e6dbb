package io.kvcacheinjector.domain;

import java.util.Objects;

/**
 * One RFC 6902 operation against the Pod exactly as received. {@code value} is a plain JSON value
 * (map, list, string, number, boolean); it is ignored for {@code remove}.
 */
public record PatchOp(Op op, String path, Object value) {
    /** The operations this project emits. */
    public enum Op {
        ADD("add"), REPLACE("replace"), REMOVE("remove");

        private final String json;

        Op(String json) {
            this.json = json;
        }

        public String json() {
            return json;
        }
    }

    public PatchOp {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(path, "path");
    }

    public static PatchOp add(String path, Object value) {
        return new PatchOp(Op.ADD, path, value);
    }

    public static PatchOp replace(String path, Object value) {
        return new PatchOp(Op.REPLACE, path, value);
    }

    /** Escapes one reference token of a JSON Pointer: {@code ~} as {@code ~0}, {@code /} as {@code ~1}. */
    public static String escape(String token) {
        if (token.indexOf('~') < 0 && token.indexOf('/') < 0) {
            return token;
        }
        return token.replace("~", "~0").replace("/", "~1");
    }
}
