package io.kvcacheinjector.app.e2e;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The samples of one Prometheus text exposition (the API server's {@code /metrics}), enough to read the admission
 * webhook series: {@code apiserver_admission_webhook_admission_duration_seconds} (a histogram labelled
 * {@code name, type, operation, rejected}), {@code ..._request_total} and {@code ..._fail_open_count}.
 */
final class MetricsSnapshot {
    static final String DURATION = "apiserver_admission_webhook_admission_duration_seconds";
    static final String FAIL_OPEN = "apiserver_admission_webhook_fail_open_count";
    static final String REQUESTS = "apiserver_admission_webhook_request_total";

    /** One sample line. */
    record Sample(String metric, Map<String, String> labels, double value) {
    }

    private final List<Sample> samples;

    private MetricsSnapshot(List<Sample> samples) {
        this.samples = samples;
    }

    static MetricsSnapshot parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            String metric;
            Map<String, String> labels = new LinkedHashMap<>();
            if (brace >= 0 && brace < space) {
                metric = line.substring(0, brace);
                int close = line.lastIndexOf('}');
                parseLabels(line.substring(brace + 1, close), labels);
            } else {
                metric = line.substring(0, space).strip();
            }
            try {
                samples.add(new Sample(metric, labels, Double.parseDouble(line.substring(space + 1).strip())));
            } catch (NumberFormatException e) {
                // a timestamped or odd line: not one the suite reads
            }
        }
        return new MetricsSnapshot(samples);
    }

    private static void parseLabels(String s, Map<String, String> out) {
        int i = 0;
        while (i < s.length()) {
            int eq = s.indexOf('=', i);
            if (eq < 0) {
                return;
            }
            String key = s.substring(i, eq).strip();
            StringBuilder value = new StringBuilder();
            int j = eq + 2; // past ="
            while (j < s.length() && s.charAt(j) != '"') {
                if (s.charAt(j) == '\\' && j + 1 < s.length()) {
                    j++;
                }
                value.append(s.charAt(j++));
            }
            out.put(key, value.toString());
            i = j + 1;
            if (i < s.length() && s.charAt(i) == ',') {
                i++;
            }
        }
    }

    /** The sum of {@code metric} over every sample whose labels include {@code match}. */
    double total(String metric, Map<String, String> match) {
        double total = 0;
        for (Sample s : samples) {
            if (s.metric().equals(metric) && s.labels().entrySet().containsAll(match.entrySet())) {
                total += s.value();
            }
        }
        return total;
    }

    /** The admission count of webhook {@code name} (and {@code operation}, {@code rejected} when non-empty). */
    double admissions(String name, String operation, String rejected) {
        Map<String, String> match = new LinkedHashMap<>();
        match.put("name", name);
        if (!operation.isEmpty()) {
            match.put("operation", operation);
        }
        if (!rejected.isEmpty()) {
            match.put("rejected", rejected);
        }
        return total(DURATION + "_count", match);
    }

    /**
     * A table of the duration histogram for {@code webhooks}, one row per series, as the difference from
     * {@code before}: count, sum, mean, and the count per bucket.
     */
    String durationTable(Set<String> webhooks, MetricsSnapshot before) {
        Map<String, Map<String, String>> series = new TreeMap<>();
        for (Sample s : samples) {
            if (s.metric().equals(DURATION + "_count") && webhooks.contains(s.labels().get("name"))) {
                series.put(key(s.labels()), s.labels());
            }
        }
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-40s %-10s %-9s %-8s %6s %10s %9s  %s%n", "name", "type", "operation",
                "rejected", "count", "sum (s)", "mean (ms)", "cumulative count per bucket le (s)"));
        for (Map<String, String> labels : series.values()) {
            double count = total(DURATION + "_count", labels) - before.total(DURATION + "_count", labels);
            double sum = total(DURATION + "_sum", labels) - before.total(DURATION + "_sum", labels);
            if (count == 0) {
                continue;
            }
            Map<Double, Double> buckets = new TreeMap<>(Comparator.naturalOrder());
            for (Sample s : samples) {
                if (s.metric().equals(DURATION + "_bucket") && s.labels().entrySet().containsAll(labels.entrySet())) {
                    String le = s.labels().get("le");
                    double bound = bound(le);
                    Map<String, String> exact = new LinkedHashMap<>(labels);
                    exact.put("le", le);
                    buckets.put(bound, s.value() - before.total(DURATION + "_bucket", exact));
                }
            }
            StringBuilder b = new StringBuilder();
            buckets.forEach((le, c) -> b.append(le.isInfinite() ? "+Inf" : trim(le)).append(':')
                    .append((long) c.doubleValue()).append(' '));
            out.append(String.format(Locale.ROOT, "%-40s %-10s %-9s %-8s %6d %10.4f %9.2f  %s%n",
                    labels.get("name"), labels.get("type"), labels.get("operation"), labels.get("rejected"),
                    (long) count, sum, count == 0 ? 0 : sum / count * 1000, b.toString().strip()));
        }
        return out.toString();
    }

    /**
     * The {@code q}-quantile of histogram {@code metric} over the series matching {@code match}, as the difference
     * from {@code before}, interpolated linearly inside its bucket as Prometheus' {@code histogram_quantile} does;
     * NaN without observations.
     */
    double quantile(String metric, Map<String, String> match, MetricsSnapshot before, double q) {
        Map<Double, Double> buckets = cumulativeBuckets(metric, match);
        before.cumulativeBuckets(metric, match).forEach((bound, count) -> buckets.merge(bound, -count, Double::sum));
        double total = buckets.getOrDefault(Double.POSITIVE_INFINITY, 0.0);
        if (total <= 0) {
            return Double.NaN;
        }
        double rank = q * total;
        double lowerBound = 0;
        double lowerCount = 0;
        for (Map.Entry<Double, Double> b : buckets.entrySet()) {
            if (b.getValue() >= rank) {
                if (b.getKey().isInfinite()) {
                    return lowerBound;
                }
                double inBucket = b.getValue() - lowerCount;
                return inBucket <= 0 ? b.getKey()
                        : lowerBound + (b.getKey() - lowerBound) * (rank - lowerCount) / inBucket;
            }
            lowerBound = b.getKey();
            lowerCount = b.getValue();
        }
        return lowerBound;
    }

    /** Histogram {@code metric}'s cumulative count per bucket bound, summed over the series matching {@code match}. */
    private Map<Double, Double> cumulativeBuckets(String metric, Map<String, String> match) {
        Map<Double, Double> buckets = new TreeMap<>();
        for (Sample s : samples) {
            if (s.metric().equals(metric + "_bucket") && s.labels().entrySet().containsAll(match.entrySet())) {
                buckets.merge(bound(s.labels().get("le")), s.value(), Double::sum);
            }
        }
        return buckets;
    }

    private static double bound(String le) {
        return le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
    }

    private static String key(Map<String, String> labels) {
        return labels.get("name") + "|" + labels.get("type") + "|" + labels.get("operation") + "|"
                + labels.get("rejected");
    }

    private static String trim(double d) {
        String s = Double.toString(d);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }
}
