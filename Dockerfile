# kvlint's image: a static binary on a distroless base, run as a non-root
# user. Use: docker run --rm -v "$PWD:/src" -w /src kvlint check .
FROM golang:1.26 AS build
WORKDIR /build
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
# CGO off: one static binary that needs no libc in the final image.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /kvlint ./cmd/kvlint

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /kvlint /usr/local/bin/kvlint
USER nonroot:nonroot
WORKDIR /src
ENTRYPOINT ["kvlint"]
CMD ["check", "."]
