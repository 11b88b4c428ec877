resource "kubernetes_deployment" "sglang" {
  count = 1000000000
  metadata {
    name = "sglang-${count.index}"
  }
  spec {
    template {
      spec {
        container {
          name    = "sglang"
          command = ["sleep", "infinity"]
        }
      }
    }
  }
}
