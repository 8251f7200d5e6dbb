package io.kvcacheinjector.app.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The findings of one {@code check} run as the checks add them, and the reads that could not be made. */
final class Findings {
    private final List<Finding> findings = new ArrayList<>();
    private final Set<String> notChecked = new LinkedHashSet<>();

    void add(FindingCode code, String object, String message, String fix) {
        findings.add(new Finding(code, object, message, fix));
    }

    /** A read that was forbidden or failed ({@code read} names it and the reason); reported once as not-checked. */
    void notChecked(String read) {
        notChecked.add(read);
    }

    /** Every finding, not-checked ones included, in catalogue order and then by object; duplicates dropped. */
    List<Finding> sorted() {
        List<Finding> all = new ArrayList<>(findings);
        for (String read : notChecked) {
            all.add(new Finding(FindingCode.NOT_CHECKED, read, "reading " + read + " was forbidden or failed, so"
                    + " the checks that need it were not made", FindingCode.NOT_CHECKED.fix()));
        }
        all.sort(Comparator.comparing((Finding f) -> f.code().ordinal()).thenComparing(Finding::object));
        return List.copyOf(new LinkedHashSet<>(all));
    }
}
