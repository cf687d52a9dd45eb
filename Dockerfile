# porchbot's container image: a static binary and CA certificates, nothing
# else; runs as a non-root user. Build it with `make image`.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
ARG REVISION=""
RUN CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" -o /out/porchbot ./cmd/porchbot

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/porchbot /porchbot
USER 65532:65532
ENV PORCHBOT_DATA_DIR=/var/lib/porchbot
EXPOSE 8080
ENTRYPOINT ["/porchbot"]
CMD ["serve"]
