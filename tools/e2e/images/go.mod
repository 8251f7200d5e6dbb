module kvcache-injector.local/e2e/images

go 1.26.0
