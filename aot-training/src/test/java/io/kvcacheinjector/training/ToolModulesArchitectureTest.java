package io.kvcacheinjector.training;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.kvcacheinjector.app.ArchitectureTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tool modules beside app's ArchitectureTest (which sees only the shipped modules): bench (with the stand-in API
 * server) and aot-training depend on the application, never the other way, bench not on the training; and the shipped
 * jar the build made holds none of their classes (issue 30, docs/explanation/decisions.md "What the shipped jar
 * holds"). Here, because this module's class path is the only one with all of them.
 */
class ToolModulesArchitectureTest {
    private static final String[] TOOLS = {"io.kvcacheinjector.bench..", "io.kvcacheinjector.standin..",
            "io.kvcacheinjector.training.."};
    private static final String[] SHIPPED = {"io.kvcacheinjector.app..", "io.kvcacheinjector.adapters..",
            "io.kvcacheinjector.ports..", "io.kvcacheinjector.domain..", "io.kvcacheinjector.engines.."};
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = ArchitectureTest.productionClasses();
    }

    @Test
    void theRulesSeeTheToolsAndTheApplication() {
        for (String pkg : List.of("io.kvcacheinjector.bench", "io.kvcacheinjector.standin", "io.kvcacheinjector.training",
                "io.kvcacheinjector.app", "io.kvcacheinjector.adapters.http")) {
            assertThat(classes.stream().anyMatch(c -> c.getPackageName().startsWith(pkg))).as("classes of " + pkg)
                    .isTrue();
        }
    }

    @Test
    void nothingShippedDependsOnATool() {
        noClasses().that().resideInAnyPackage(SHIPPED).should().dependOnClassesThat().resideInAnyPackage(TOOLS)
                .check(classes);
    }

    @Test
    void benchAndTheStandInDoNotDependOnTheTraining() {
        noClasses().that().resideInAnyPackage("io.kvcacheinjector.bench..", "io.kvcacheinjector.standin..")
                .should().dependOnClassesThat().resideInAPackage("io.kvcacheinjector.training..").check(classes);
    }

    @Test
    void theShippedJarHoldsNoClassOfTheTools() throws IOException {
        Path jar = Path.of("..", "app", "target", "kvcache-injector.jar");
        Assumptions.assumeTrue(Files.isRegularFile(jar), "app/target/kvcache-injector.jar is built by `package`");
        try (JarFile j = new JarFile(jar.toFile())) {
            List<String> tools = j.stream().map(e -> e.getName()).filter(n -> n.startsWith("io/kvcacheinjector/bench/")
                    || n.startsWith("io/kvcacheinjector/standin/") || n.startsWith("io/kvcacheinjector/training/"))
                    .toList();
            assertThat(tools).as("entries of the tool modules in %s", jar).isEmpty();
            assertThat(j.getEntry("io/kvcacheinjector/app/Main.class")).as("the jar's main class").isNotNull();
        }
    }
}
