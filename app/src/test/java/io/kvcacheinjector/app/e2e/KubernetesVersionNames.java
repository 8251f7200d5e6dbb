package io.kvcacheinjector.app.e2e;

import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.DisplayNameGenerator;

/**
 * The e2e tests' names carry the version of the API server they ran against ({@code -Dkvcache.e2e.version}, set per
 * surefire execution of the version matrix in app/pom.xml), so that a report of the matrix says which version a
 * failure is on: {@code CheckE2E on kube-apiserver v1.29.6}, {@code theMethod() on kube-apiserver v1.29.6}. Without
 * the property the names are JUnit's standard ones.
 */
public final class KubernetesVersionNames extends DisplayNameGenerator.Standard {
    private static String suffix() {
        String version = System.getProperty("kvcache.e2e.version", "").strip();
        return version.isEmpty() ? "" : " on kube-apiserver " + version;
    }

    @Override
    public String generateDisplayNameForClass(Class<?> testClass) {
        return super.generateDisplayNameForClass(testClass) + suffix();
    }

    @Override
    public String generateDisplayNameForNestedClass(List<Class<?>> enclosingInstanceTypes, Class<?> nestedClass) {
        return super.generateDisplayNameForNestedClass(enclosingInstanceTypes, nestedClass) + suffix();
    }

    @Override
    public String generateDisplayNameForMethod(List<Class<?>> enclosingInstanceTypes, Class<?> testClass,
            Method testMethod) {
        return super.generateDisplayNameForMethod(enclosingInstanceTypes, testClass, testMethod) + suffix();
    }
}
