locals {
  name = "sglang-${var.gpus}gpu"
  args = [
    "--model-path", var.model,
    "--context-length", tostring(var.context_length),
    "--max-total-tokens", var.max_total_tokens,
    "--tp-size", var.gpus,
  ]
}

resource "kubernetes_deployment_v1" "sglang" {
  metadata {
    name = local.name
  }
  spec {
    replicas = 2
    template {
      metadata {
        labels = { app = "sglang" }
      }
      spec {
        node_selector = {
          "nvidia.com/gpu.product" = "NVIDIA-H100-80GB-HBM3"
        }
        container {
          name    = "server"
          image   = "lmsysorg/sglang:latest"
          command = ["python3", "-m", "sglang.launch_server"]
          args    = concat(local.args, ["--host", "0.0.0.0"])
          resources {
            limits = {
              "nvidia.com/gpu" = var.gpus
            }
          }
        }
      }
    }
  }
}
