package io.kvcacheinjector.domain.kvcache;

import static io.kvcacheinjector.domain.kvcache.KvCacheKeys.MANUFACTURER;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The installed engines that one {@code engine} annotation value can select, and the message parts that tell a Pod
 * author which values the installed engines accept. Everything named here comes from the engine plugins; values are
 * listed alphabetically (case-insensitively), so a message never depends on the order the engines were loaded in.
 *
 * @param plain    the engine selected by the value alone, if one is installed
 * @param variants the engines selected by the value together with a manufacturer, by display name
 */
record EngineChoices(Optional<SelectableEngine> plain, List<SelectableEngine> variants) {
    private static final Comparator<SelectableEngine> BY_NAME =
            Comparator.comparing(SelectableEngine::displayName, String.CASE_INSENSITIVE_ORDER);

    static EngineChoices forValue(List<SelectableEngine> installed, String engineValue) {
        Optional<SelectableEngine> plain = installed.stream()
                .filter(i -> i.selector().matches(engineValue, Optional.empty())).findFirst();
        List<SelectableEngine> variants = installed.stream()
                .filter(i -> i.selector().manufacturer().isPresent() && i.selector().engine().equalsIgnoreCase(engineValue))
                .sorted(BY_NAME).toList();
        return new EngineChoices(plain, variants);
    }

    boolean none() {
        return plain.isEmpty() && variants.isEmpty();
    }

    /** {@code the only accepted value is ascend (any case), which selects vLLM-Ascend; set it to ascend together with engine: vLLM, or remove it}. */
    String acceptedManufacturers() {
        String engine = variants.get(0).selector().engine();
        String orRemove = plain.isPresent() ? ", or remove it" : "";
        if (variants.size() == 1) {
            SelectableEngine v = variants.get(0);
            String m = v.selector().manufacturer().orElseThrow();
            return "the only accepted value is " + m + " (any case), which selects " + v.displayName() + "; set it to "
                    + m + " together with engine: " + engine + orRemove;
        }
        return "the accepted values are " + variants.stream()
                .map(v -> v.selector().manufacturer().orElseThrow() + " (selects " + v.displayName() + ")")
                .collect(Collectors.joining(", ")) + ", in any case; set one of them together with engine: " + engine + orRemove;
    }

    /** {@code for vLLM-Ascend, set kvcache.gpustack.ai/manufacturer: ascend}. */
    String variantsAsFix() {
        return variants.stream().map(v -> "for " + v.displayName() + ", set " + MANUFACTURER + ": "
                + v.selector().manufacturer().orElseThrow()).collect(Collectors.joining("; "));
    }

    /** Every engine value an installed engine accepts, alphabetically. */
    static List<String> allValues(List<SelectableEngine> installed) {
        TreeSet<String> values = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        installed.forEach(i -> values.add(i.selector().engine()));
        return List.copyOf(values);
    }

    /**
     * {@code set it to SGLang or vLLM (for vLLM-Ascend, set engine: vLLM and kvcache.gpustack.ai/manufacturer:
     * ascend)}.
     */
    static String howToDeclare(List<SelectableEngine> installed) {
        List<SelectableEngine> variants = variants(installed);
        String hints = variants.stream().map(v -> "for " + v.displayName() + ", set engine: " + v.selector().engine()
                + " and " + MANUFACTURER + ": " + v.selector().manufacturer().orElseThrow()).collect(Collectors.joining("; "));
        List<String> plain = plainValues(installed);
        if (plain.isEmpty()) {
            return "set it as the installed engine needs: " + hints;
        }
        return "set it to " + or(plain) + (hints.isEmpty() ? "" : " (" + hints + ")");
    }

    /** {@code SGLang or vLLM}: the values that select an engine alone (or, if none does, every value). */
    static String plainValuesOr(List<SelectableEngine> installed) {
        List<String> plain = plainValues(installed);
        return or(plain.isEmpty() ? allValues(installed) : plain);
    }

    /**
     * When {@code value} names a variant engine by its id or display name ({@code vllm-ascend}):
     * {@code ; vLLM-Ascend is declared as engine: vLLM together with kvcache.gpustack.ai/manufacturer: ascend}.
     */
    static String variantHint(List<SelectableEngine> installed, String value) {
        return namedVariant(installed, value).map(v -> "; " + v.displayName() + " is declared as engine: "
                + v.selector().engine() + " together with " + MANUFACTURER + ": " + v.selector().manufacturer().orElseThrow())
                .orElse("");
    }

    /** The fix that goes with {@link #variantHint}: {@code , and for vLLM-Ascend add kvcache.gpustack.ai/manufacturer: ascend}. */
    static String variantFix(List<SelectableEngine> installed, String value) {
        return namedVariant(installed, value).map(v -> ", and for " + v.displayName() + " add " + MANUFACTURER + ": "
                + v.selector().manufacturer().orElseThrow()).orElse("");
    }

    /**
     * {@code a manufacturer only selects the vLLM-Ascend runtime of engine vLLM; remove it (for vLLM-Ascend, set
     * engine: vLLM with kvcache.gpustack.ai/manufacturer: ascend)}.
     */
    static String whatManufacturersSelect(List<SelectableEngine> installed) {
        List<SelectableEngine> variants = variants(installed);
        if (variants.isEmpty()) {
            return "no installed engine is selected by a manufacturer; remove it";
        }
        return "a manufacturer only selects " + variants.stream()
                .map(v -> "the " + v.displayName() + " runtime of engine " + v.selector().engine())
                .collect(Collectors.joining(", ")) + "; remove it (" + variants.stream()
                .map(v -> "for " + v.displayName() + ", set engine: " + v.selector().engine() + " with " + MANUFACTURER
                        + ": " + v.selector().manufacturer().orElseThrow())
                .collect(Collectors.joining("; ")) + ")";
    }

    private static Optional<SelectableEngine> namedVariant(List<SelectableEngine> installed, String value) {
        return variants(installed).stream()
                .filter(v -> v.id().equalsIgnoreCase(value) || v.displayName().equalsIgnoreCase(value)).findFirst();
    }

    private static List<SelectableEngine> variants(List<SelectableEngine> installed) {
        return installed.stream().filter(i -> i.selector().manufacturer().isPresent()).sorted(BY_NAME).toList();
    }

    private static List<String> plainValues(List<SelectableEngine> installed) {
        TreeSet<String> values = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        installed.stream().filter(i -> i.selector().manufacturer().isEmpty()).forEach(i -> values.add(i.selector().engine()));
        return List.copyOf(values);
    }

    /** {@code a}, {@code a or b}, {@code a, b or c}. */
    private static String or(List<String> values) {
        if (values.size() <= 1) {
            return String.join("", values);
        }
        return String.join(", ", values.subList(0, values.size() - 1)) + " or " + values.get(values.size() - 1);
    }
}
