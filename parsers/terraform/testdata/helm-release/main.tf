variable "context_length" {
  type    = number
  default = 131072
}

variable "max_total_tokens" {
  type = number
}

resource "helm_release" "sglang" {
  name      = "chat"
  namespace = "llm"
  chart     = "${path.module}/chart"

  values = [
    yamlencode({
      server = {
        contextLength  = var.context_length
        maxTotalTokens = var.max_total_tokens
      }
    }),
    <<-EOT
    server:
      pageSize: 64
    EOT
  ]

  set {
    name  = "replicas"
    value = 2
  }
}
