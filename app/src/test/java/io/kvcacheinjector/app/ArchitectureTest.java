package io.kvcacheinjector.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The dependency rules of docs/explanation/architecture.md, over the production classes of every module. */
public class ArchitectureTest {
    private static final String[] FRAMEWORKS = {"io.fabric8..", "io.helidon..", "com.google.inject..", "com.fasterxml.jackson..",
        "io.prometheus.."};
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = productionClasses();
    }

    /**
     * The production classes of {@code io.kvcacheinjector} on the class path: not test-classes folders, not the
     * test-jars of shared fixtures (ports', app's). Also for the tool modules' rules (ToolModulesArchitectureTest).
     */
    public static JavaClasses productionClasses() {
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar") && !location.contains("/test-classes/"))
                .importPackages("io.kvcacheinjector");
    }

    @Test
    void theRulesSeeARealisticNumberOfClassesFromEveryModule() {
        assertThat(classes.size()).isGreaterThan(150);
        for (String pkg : new String[] {"io.kvcacheinjector.domain", "io.kvcacheinjector.ports", "io.kvcacheinjector.engines.vllm",
                "io.kvcacheinjector.engines.ascend", "io.kvcacheinjector.engines.sglang", "io.kvcacheinjector.adapters.k8s",
                "io.kvcacheinjector.adapters.http", "io.kvcacheinjector.app"}) {
            assertThat(classes.stream().anyMatch(c -> c.getPackageName().startsWith(pkg))).as("classes of " + pkg).isTrue();
        }
    }

    @Test
    void domainDependsOnTheJdkOnly() {
        noClasses().that().resideInAPackage("io.kvcacheinjector.domain..")
                .should().dependOnClassesThat().resideOutsideOfPackages("java..", "io.kvcacheinjector.domain..")
                .check(classes);
    }

    @Test
    void portsAndEnginesUseNoFramework() {
        noClasses().that().resideInAnyPackage("io.kvcacheinjector.ports..", "io.kvcacheinjector.engines..")
                .should().dependOnClassesThat().resideInAnyPackage(FRAMEWORKS)
                .check(classes);
    }

    @Test
    void portsDoNotDependOnEnginesAdaptersOrTheApp() {
        noClasses().that().resideInAnyPackage("io.kvcacheinjector.domain..", "io.kvcacheinjector.ports..")
                .should().dependOnClassesThat().resideInAnyPackage("io.kvcacheinjector.engines..", "io.kvcacheinjector.adapters..",
                        "io.kvcacheinjector.app..")
                .check(classes);
    }

    @Test
    void enginesDoNotDependOnAdaptersOrTheApp() {
        noClasses().that().resideInAPackage("io.kvcacheinjector.engines..")
                .should().dependOnClassesThat().resideInAnyPackage("io.kvcacheinjector.adapters..", "io.kvcacheinjector.app..")
                .check(classes);
    }

    /**
     * Engines are plugins: the application and the adapters never name an engine class (they find engines in the
     * engines folder), and an engine uses only what its class loader shows it at run time: the JDK, the domain, the
     * SPI and the engines' own packages (the vLLM family library is bundled in the folders that use it).
     */
    @Test
    void theAppAndTheAdaptersDoNotDependOnEngines() {
        noClasses().that().resideInAnyPackage("io.kvcacheinjector.app..", "io.kvcacheinjector.adapters..")
                .should().dependOnClassesThat().resideInAPackage("io.kvcacheinjector.engines..")
                .check(classes);
    }

    @Test
    void enginesSeeOnlyTheSpiTheDomainAndTheJdk() {
        noClasses().that().resideInAPackage("io.kvcacheinjector.engines..")
                .should().dependOnClassesThat().resideOutsideOfPackages("java..", "io.kvcacheinjector.domain..",
                        "io.kvcacheinjector.ports.spi..", "io.kvcacheinjector.engines..")
                .check(classes);
    }

    @Test
    void adaptersDoNotDependOnEachOther() {
        noClasses().that().resideInAPackage("io.kvcacheinjector.adapters.k8s..")
                .should().dependOnClassesThat().resideInAPackage("io.kvcacheinjector.adapters.http..").check(classes);
        noClasses().that().resideInAPackage("io.kvcacheinjector.adapters.http..")
                .should().dependOnClassesThat().resideInAPackage("io.kvcacheinjector.adapters.k8s..").check(classes);
    }

    @Test
    void onlyTheAppUsesServiceLoaderForEngines() {
        noClasses().that().resideOutsideOfPackage("io.kvcacheinjector.app..")
                .should().callMethod(java.util.ServiceLoader.class, "load", Class.class)
                .check(classes);
    }

    @Test
    void thereAreNoPackageCycles() {
        slices().matching("io.kvcacheinjector.(**)").should().beFreeOfCycles().check(classes);
    }
}
