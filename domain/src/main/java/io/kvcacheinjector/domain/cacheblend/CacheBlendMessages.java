package io.kvcacheinjector.domain.cacheblend;

import io.kvcacheinjector.domain.text.MessageText;
import static io.kvcacheinjector.domain.text.MessageText.quote;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.flags.FlagHit;
import io.kvcacheinjector.domain.pod.Container;
import io.kvcacheinjector.domain.pod.EnvVar;
import io.kvcacheinjector.domain.pod.VolumeMount;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The words of every CacheBlend skip, refusal and warning (docs/reference/refusal-codes.md, "cacheblend mutate" and "Message style").
 * Each text starts with its code, names the things involved as written, and ends with the fix. A skip has two
 * texts: a short admission warning and a full refusal message for the fail-closed switch.
 */
public final class CacheBlendMessages {
    private static final String NOT_INJECTED = "CacheBlend not injected: ";
    private static final String ENGINE_KIND = "CacheBlendEngine ";

    private CacheBlendMessages() {
    }

    // ---- refusals that are never skips

    /** {@code contracts-conflict}: both opt-in labels are {@code "true"}. */
    public static String contractsConflict(String pod) {
        return ReasonCode.CONTRACTS_CONFLICT.id() + ": Pod " + pod + " sets both " + CacheBlendKeys.KVCACHE_LABEL_INJECT
                + " and " + CacheBlendKeys.LABEL_INJECT + " to \"true\", but each contract sets vLLM's single"
                + " --kv-transfer-config connector, so at most one of them could take effect. Remove one of the two"
                + " labels where the Pod is defined.";
    }

    /** {@code pod-unreadable}: the object has a field of the wrong type. */
    public static String podUnreadable(String problem) {
        return ReasonCode.POD_UNREADABLE.id() + ": the object under review is not a readable Pod: " + problem
                + ", so CacheBlend admission cannot inspect it. Correct that field where the Pod is defined.";
    }

    // ---- skips, in the evaluation order of docs/reference/cacheblend-injection.md

    public static CacheBlendSkip engineRefInvalid(String pod, String problem) {
        ReasonCode code = ReasonCode.ENGINE_REF_INVALID;
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + "annotation " + CacheBlendKeys.ENGINE + " " + problem
                        + "; set it to <namespace>/<name> of a CacheBlendEngine",
                code.id() + ": annotation " + CacheBlendKeys.ENGINE + " on Pod " + pod + " " + problem
                        + ", so no CacheBlendEngine can be looked up and the Pod would run without CacheBlend. Set it"
                        + " to the <namespace>/<name> of a CacheBlendEngine; a bare name means the Pod's namespace.");
    }

    public static CacheBlendSkip engineRefForbidden(String pod, String podNamespace, EngineReference ref,
                                                    Set<String> allowed) {
        ReasonCode code = ReasonCode.ENGINE_REF_FORBIDDEN;
        String allowedList = allowed.isEmpty() ? "none" : String.join(", ", new TreeSet<>(allowed));
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + CacheBlendKeys.ENGINE + " " + quote(ref.written())
                        + " names namespace " + quote(ref.namespace()) + ", which this install does not allow for Pods"
                        + " in " + quote(podNamespace),
                code.id() + ": annotation " + CacheBlendKeys.ENGINE + " " + quote(ref.written()) + " on Pod " + pod
                        + " names an engine in namespace " + quote(ref.namespace()) + ", and this install does not"
                        + " allow Pods in namespace " + quote(podNamespace) + " to use engines there, so nothing in"
                        + " that namespace was read. Use an engine in namespace " + quote(podNamespace) + " or in an"
                        + " allowed namespace (" + allowedList + "), or ask the cluster administrator to allow"
                        + " namespace " + quote(ref.namespace()) + ".");
    }

    public static CacheBlendSkip pdRoleInvalid(String pod, String value) {
        ReasonCode code = ReasonCode.PD_ROLE_INVALID;
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + CacheBlendKeys.PD_ROLE + " is " + quote(value)
                        + "; set \"prefiller\" or \"decoder\", or remove it",
                code.id() + ": annotation " + CacheBlendKeys.PD_ROLE + " on Pod " + pod + " is " + quote(value)
                        + ", which selects no key of the engine's connection ConfigMap (the accepted values are"
                        + " prefiller and decoder). Set \"prefiller\" or \"decoder\", or remove the annotation to use "
                        + CacheBlendKeys.CONNECTION_KEY + ".");
    }

    public static CacheBlendSkip engineNotFound(String pod, EngineReference ref) {
        ReasonCode code = ReasonCode.ENGINE_NOT_FOUND;
        String bare = ref.namespaceGiven() ? "" : " (a bare name is looked up in the Pod's namespace)";
        String fix = ref.namespaceGiven()
                ? "Correct the reference, or create the engine."
                : "Correct the reference (a shared engine usually needs its namespace in front, as <namespace>/"
                        + ref.name() + "), or create the engine.";
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + "no " + ENGINE_KIND + ref.qualified() + bare
                        + "; correct " + CacheBlendKeys.ENGINE + " or create the engine",
                code.id() + ": annotation " + CacheBlendKeys.ENGINE + " " + quote(ref.written()) + " on Pod " + pod
                        + " names " + ENGINE_KIND + ref.qualified() + ", which does not exist" + bare
                        + ", so the Pod would run without CacheBlend. " + fix);
    }

    public static CacheBlendSkip connectionMissing(EngineReference ref) {
        ReasonCode code = ReasonCode.CONNECTION_MISSING;
        String cm = ref.namespace() + "/" + CacheBlendKeys.connectionName(ref.name());
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + "ConfigMap " + cm + " of " + ENGINE_KIND + ref.qualified()
                        + " does not exist; wait for the engine to reconcile",
                code.id() + ": " + ENGINE_KIND + ref.qualified() + " exists but its ConfigMap " + cm + " does not:"
                        + " the engine has not been reconciled yet, or its spec failed validation, and without it"
                        + " there is no connector to give vLLM. Wait for the engine to reconcile: a controller must"
                        + " run for it (this webhook's, serve --reconcile-cacheblend, chart value"
                        + " cacheBlend.controller.enabled=true, or an upstream LMCache operator's); if one runs, read the"
                        + " engine's ConfigValid condition and correct its spec.");
    }

    public static CacheBlendSkip connectionInvalid(EngineReference ref, String key, String problem) {
        ReasonCode code = ReasonCode.CONNECTION_INVALID;
        String cm = ref.namespace() + "/" + CacheBlendKeys.connectionName(ref.name());
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + "key " + key + " of ConfigMap " + cm + " " + problem
                        + "; let the engine's operator rewrite it",
                code.id() + ": key " + key + " of ConfigMap " + cm + " " + problem + ", so there is no connector"
                        + " to pass to vLLM as --kv-transfer-config. Let the engine's operator rewrite the ConfigMap"
                        + " (it reverts hand edits); if the problem persists, check the operator and engine versions.");
    }

    /**
     * {@code lookup-failed}.
     *
     * @param what   the object being read, for example {@code CacheBlendEngine ops/cb}
     * @param reason one clause from the directory, naming the error class
     */
    public static CacheBlendSkip lookupFailed(String what, String reason) {
        ReasonCode code = ReasonCode.LOOKUP_FAILED;
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + what + " could not be read (" + reason + "); recreate the Pod"
                        + " once the webhook is healthy",
                code.id() + ": " + what + " could not be read (" + reason + "), so the webhook cannot tell whether"
                        + " the Pod can use CacheBlend. Check the webhook's RBAC and its connection to the API server;"
                        + " the Pod can be recreated once it is healthy.");
    }

    public static CacheBlendSkip targetContainerNotFound(String pod, TargetContainer.NotFound notFound) {
        ReasonCode code = ReasonCode.TARGET_CONTAINER_NOT_FOUND;
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + notFound.brief() + "; name the vLLM container in "
                        + CacheBlendKeys.CONTAINER,
                code.id() + ": on Pod " + pod + ", " + notFound.problem() + ", so there is no vLLM container to"
                        + " inject. Name an existing container in annotation " + CacheBlendKeys.CONTAINER
                        + " or on the engine (" + CacheBlendKeys.ENGINE_TARGET_FIELD + ").");
    }

    /**
     * {@code launch-unproven}.
     *
     * @param program the program the command resolved to, as written, or empty when none was found
     * @param detail  the kvcache launch analysis' brief reason, starting with its {@code launch-*} code
     */
    public static CacheBlendSkip launchUnproven(Container target, String program, String detail) {
        ReasonCode code = ReasonCode.LAUNCH_UNPROVEN;
        String runs = program.isEmpty() ? "" : " (program " + quote(program) + ")";
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + "container " + quote(target.name()) + " sets command" + runs
                        + ", not shown to reach vLLM (" + detail + "); start vllm in command",
                code.id() + ": container " + quote(target.name()) + " sets command" + runs + ", and launch analysis"
                        + " cannot show that the command line reaches vLLM (" + detail + "), so the appended CacheBlend"
                        + " arguments might never reach it. Start vllm directly in command (for example command:"
                        + " [vllm, serve]), or drop command and let the image ENTRYPOINT start vLLM with your args.");
    }

    /** {@code kv-transfer-config-present}: the first entry vLLM reads as {@code --kv-transfer-config}. */
    public static CacheBlendSkip kvTransferConfigPresent(Container target, FlagHit hit) {
        ReasonCode code = ReasonCode.KV_TRANSFER_CONFIG_PRESENT;
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + "container " + quote(target.name()) + " passes "
                        + quote(hit.written()) + " (" + hit.flag() + "); remove it or drop the "
                        + CacheBlendKeys.LABEL_INJECT + " label",
                code.id() + ": container " + quote(target.name()) + " already passes " + hit.describe("vLLM")
                        + ", so it configures its own KV connector and CacheBlend's would compete with it; nothing is"
                        + " injected. Remove the flag (CacheBlend supplies its own connector), or drop the "
                        + CacheBlendKeys.LABEL_INJECT + " label.");
    }

    /**
     * {@code plugin-name-taken}: the Pod already uses {@code what} (an app container named {@code cb-plugin-stage}, or a
     * mount of another volume at {@code /cb-plugin} on the target), so the injected Pod would be rejected by the API
     * server for a duplicate name or mount path.
     */
    public static CacheBlendSkip pluginNameTaken(String what, String fix) {
        ReasonCode code = ReasonCode.PLUGIN_NAME_TAKEN;
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + what + " is taken; " + fix,
                code.id() + ": " + what + " is already used by the Pod, and CacheBlend needs it for the plugin it stages,"
                        + " so the injected Pod would be rejected by the API server (duplicate name or mount path); nothing is"
                        + " injected. " + Character.toUpperCase(fix.charAt(0)) + fix.substring(1) + ".");
    }

    public static CacheBlendSkip payloadImageUnset(EngineReference ref) {
        ReasonCode code = ReasonCode.PAYLOAD_IMAGE_UNSET;
        return new CacheBlendSkip(code,
                code.id() + ": " + NOT_INJECTED + ENGINE_KIND + ref.qualified() + " has no "
                        + CacheBlendKeys.PAYLOAD_FIELD + "; set the engine's payload image",
                code.id() + ": " + ENGINE_KIND + ref.qualified() + " has no " + CacheBlendKeys.PAYLOAD_FIELD
                        + ", so there is no plugin image to stage and vLLM could not load the CacheBlend connector."
                        + " Set the payload image on the engine (Helm value cacheBlend.spec.injection.payloadImage).");
    }

    // ---- warnings of an injected Pod

    /**
     * {@code warn-namespace-not-privileged}: the Pod's namespace enforces a Pod Security level other than
     * {@code privileged}, which rejects the hostIPC (or the hostPath {@code /dev/shm}) just injected.
     */
    public static Warning namespaceNotPrivileged(String namespace, String level) {
        ReasonCode code = ReasonCode.WARN_NAMESPACE_NOT_PRIVILEGED;
        return new Warning(code, code.id() + ": Namespace " + namespace + " has "
                + io.kvcacheinjector.domain.cluster.NamespaceLabels.PSS_ENFORCE + "=" + quote(level)
                + ", which rejects the injected hostIPC; label the namespace "
                + io.kvcacheinjector.domain.cluster.NamespaceLabels.PSS_ENFORCE + "=privileged");
    }

    /**
     * {@code warn-images-mismatched}: the engine injects a payload image tag other than the tag of its own image; an
     * unmatched plugin and vllm-openai pair fails at start with an ImportError.
     */
    public static Warning imagesMismatched(EngineReference ref, String payloadTag, String imageTag) {
        ReasonCode code = ReasonCode.WARN_IMAGES_MISMATCHED;
        return new Warning(code, code.id() + ": " + ENGINE_KIND + ref.qualified() + " injects payload tag "
                + quote(payloadTag) + " but runs image tag " + quote(imageTag)
                + " (ImportError at start); pin a matched pair of tags on the engine");
    }

    static Warning overriddenFlags(Container target, List<FlagHit> hits) {
        String tokens = hits.stream()
                .map(h -> quote(h.written()) + (h.inCommand() ? " (command)" : ""))
                .distinct()
                .collect(Collectors.joining(", "));
        String flags = hits.stream().map(h -> CacheBlendArgs.appendedFor(h.flag()))
                .distinct().collect(Collectors.joining(", "));
        return new Warning(ReasonCode.WARN_OVERRIDDEN_FLAG,
                ReasonCode.WARN_OVERRIDDEN_FLAG.id() + ": container " + quote(target.name()) + " sets " + tokens
                        + ", overridden by the " + flags + " CacheBlend appends; remove them from the Pod");
    }

    static Warning configFile(Container target, List<String> files) {
        return new Warning(ReasonCode.WARN_CONFIG_FILE,
                ReasonCode.WARN_CONFIG_FILE.id() + ": container " + quote(target.name()) + " loads --config "
                        + files.stream().map(MessageText::quote).collect(Collectors.joining(", "))
                        + ", which admission cannot read; keep the flags CacheBlend injects out of it (dotted keys"
                        + " there win)");
    }

    static Warning pythonPathValueFrom(Container target) {
        return new Warning(ReasonCode.WARN_PYTHONPATH_VALUEFROM,
                ReasonCode.WARN_PYTHONPATH_VALUEFROM.id() + ": container " + quote(target.name())
                        + " sets PYTHONPATH through valueFrom; it is replaced by " + CacheBlendKeys.PLUGIN_PATH
                        + "; set PYTHONPATH as a literal value if more paths are needed");
    }

    static Warning vllmPlugins(Container target, EnvVar plugins) {
        String value = plugins.valueFrom() ? "through valueFrom" : "to " + quote(plugins.value().orElse(""));
        return new Warning(ReasonCode.WARN_VLLM_PLUGINS,
                ReasonCode.WARN_VLLM_PLUGINS.id() + ": container " + quote(target.name()) + " sets VLLM_PLUGINS "
                        + value + ", an allow-list, so the CacheBlend plugin may not load; remove it or add the"
                        + " plugin to it");
    }

    static Warning devShmEmptyDir(Container target, VolumeMount mount, String source) {
        return new Warning(ReasonCode.WARN_DEV_SHM_EMPTYDIR,
                ReasonCode.WARN_DEV_SHM_EMPTYDIR.id() + ": container " + quote(target.name()) + " mounts volume "
                        + quote(mount.name()) + " (" + source + ") at " + quote(mount.mountPath())
                        + ", hiding the host's shared /dev/shm that CUDA IPC needs; remove that mount");
    }
}
