# brushwork's OpenEnv server: Debian Chromium (software WebGL), the pinned p5 / p5.brush from
# npm, brushwork itself. Build from the repository root:
#   docker build -t brushwork-env . && docker run -p 8000:8000 brushwork-env
# Settings come from BRUSHWORK_* variables (see src/brushwork/env/settings.py), e.g.
#   docker run -e BRUSHWORK_WORKERS=8 -e BRUSHWORK_PRESET=hps-led -p 8000:8000 brushwork-env
FROM debian:bookworm-slim

RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      python3 python3-venv chromium-headless-shell chromium nodejs npm ca-certificates curl libgl1 \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

COPY pyproject.toml README.md LICENSE ./
COPY src ./src
RUN python3 -m venv /opt/venv \
 && /opt/venv/bin/pip install --no-cache-dir . \
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
